import { ConnectorError, type HttpAnswer } from '../../../core/connectors/index.ts';

/**
 * Reading providers' answers. A provider's own words (an error code, a `message`) are kept, cut
 * short, in the error we raise; a body we cannot read is `provider-unavailable`, never a 500.
 */

export function jsonOf(provider: string, answer: HttpAnswer): unknown {
  if (answer.truncated) throw new ConnectorError('provider-unavailable', `${provider} answered more than we read (status ${answer.status})`);
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    throw new ConnectorError('provider-unavailable', `${provider} answered status ${answer.status} with a body that is not JSON`);
  }
}

export function field(value: unknown, name: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
}

/** A provider's word, safe to show: printable, short. */
export function said(value: unknown): string {
  const text = typeof value === 'string' ? value : '';
  return text.replace(/[^\x20-\x7E]/g, '?').slice(0, 200);
}

export function requireSetting(settings: Readonly<Record<string, string>>, name: string, connector: string): string {
  const value = settings[name];
  if (value === undefined) throw new ConnectorError('not-configured', `the ${connector} connector is not configured: ${name} is not set`);
  return value;
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
