import { readerOf, type ConfigReader, type Env } from './reader.ts';
import type { StoredSecrets } from './secrets.ts';
import { sharedConfig, type SharedConfig } from './shared.ts';

/**
 * A service's section of the configuration: the variables it alone reads, parsed, defaulted and
 * checked (services/<name>/config.ts). It returns the fields it adds to the suite's configuration;
 * a bad value throws the reader's `fail`, naming the variable.
 */
export type ConfigSection<S extends object> = (read: ConfigReader) => S;

/** What declares a section: a service module (services/kit), by its name and its `config`. */
interface SectionOwner {
  readonly name: string;
  readonly config?: ConfigSection<object>;
}

/**
 * The suite's configuration: the shared sections and the section of each owner, in order, read
 * from `env` once, then frozen. `S` is the owners' sections together (services/index.ts derives it
 * from the modules). A field declared twice is a mistake of the code, not of the environment: it
 * stops the start naming both owners.
 */
export function composeConfig<S extends object>(env: Env, stored: StoredSecrets | undefined, owners: readonly SectionOwner[]): SharedConfig & S {
  const read = readerOf(env);
  const config: Record<string, unknown> = { ...sharedConfig(read, stored) };
  const declaredBy = new Map(Object.keys(config).map((field) => [field, 'config/']));
  for (const owner of owners) {
    if (owner.config === undefined) continue;
    for (const [field, value] of Object.entries(owner.config(read))) {
      const earlier = declaredBy.get(field);
      if (earlier !== undefined) throw new Error(`the configuration field ${field} is declared by ${earlier} and by the ${owner.name} service`);
      declaredBy.set(field, `the ${owner.name} service`);
      config[field] = value;
    }
  }
  // The sections' own types are S: each owner's section returned its part of it.
  return deepFreeze(config) as SharedConfig & S;
}

/** The shared sections alone, frozen: for a part that reads nothing of a service (tests of observability/, edge-http/). */
export function loadSharedConfig(env: Env, stored?: StoredSecrets): SharedConfig {
  return composeConfig<object>(env, stored, []);
}

/** One section read from `env`, frozen: what a section's unit test checks. */
export function readSection<S extends object>(section: ConfigSection<S>, env: Env): S {
  return deepFreeze(section(readerOf(env)));
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
