import type { ConnectorManifest, ConnectorVariable } from './types.ts';

/**
 * Connector variables: how a value is checked (services/connectors/config.ts throws with the
 * variable's name when this says no), and what a connector's configuration state is. Values never
 * leave through here.
 */

const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]{16,}={0,2}$/;

/** Why `value` is no good for `variable`, or undefined. Never quotes the value (it may be a secret). */
export function settingProblem(variable: ConnectorVariable, value: string): string | undefined {
  switch (variable.kind) {
    case 'url': {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return 'must be an http:// or https:// URL';
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http:// or https:// URL';
      if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials (they go in their own variable)';
      return undefined;
    }
    case 'postgres-url':
      return /^postgres(ql)?:\/\/\S+$/.test(value) ? undefined : 'must be a postgres:// URL';
    case 'integer': {
      if (!/^[0-9]{1,9}$/.test(value)) return 'must be a whole number';
      const n = Number(value);
      if ((variable.min !== undefined && n < variable.min) || (variable.max !== undefined && n > variable.max)) {
        return `must be between ${variable.min} and ${variable.max}`;
      }
      return undefined;
    }
    case 'webhook-secret':
      return WEBHOOK_SECRET.test(value) ? undefined : 'must be a Standard Webhooks secret: whsec_ followed by base64 (at least 16 characters)';
    case 'text':
      return /^[\x21-\x7E]+$/.test(value) ? undefined : 'must be printable ASCII without spaces';
  }
}

/** A connector's variables as GET /connectors shows them: whether each is set, never its value. */
export interface VariableState {
  readonly name: string;
  readonly description: string;
  readonly secret: boolean;
  readonly required: boolean;
  readonly set: boolean;
  /** Shown for non-secret variables only. */
  readonly default?: string;
}

export interface ConfigurationState {
  readonly configured: boolean;
  /** Required variables that are not set. */
  readonly missing: readonly string[];
  readonly variables: readonly VariableState[];
}

/** `set` is the raw values given (the configuration); defaults do not count as set. */
export function configurationState(manifest: ConnectorManifest, set: ReadonlySet<string>): ConfigurationState {
  const variables = manifest.variables.map(
    (v): VariableState => ({
      name: v.name,
      description: v.description,
      secret: v.secret,
      required: v.required,
      set: set.has(v.name),
      ...(v.default !== undefined && !v.secret ? { default: v.default } : {}),
    }),
  );
  const missing = manifest.variables.filter((v) => v.required && !set.has(v.name)).map((v) => v.name);
  return { configured: missing.length === 0, missing, variables };
}

/** The settings a connector's code sees: the values set, defaults for the rest. */
export function settingsOf(manifest: ConnectorManifest, values: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const v of manifest.variables) {
    const value = Object.hasOwn(values, v.name) ? values[v.name] : v.default;
    if (value !== undefined) out[v.name] = value;
  }
  return Object.freeze(out);
}
