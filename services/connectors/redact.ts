import type { Connector } from '../../core/connectors/index.ts';

/**
 * Removes every configured secret value (and, for a postgres URL, its password) from a text before it
 * is logged or answered. Our own messages never include them; this covers a provider or a driver that
 * echoes one back.
 */
export function redactor(connectors: readonly Connector[], values: Readonly<Record<string, string>>): (text: string) => string {
  const secrets: string[] = [];
  for (const c of connectors) {
    for (const v of c.manifest.variables) {
      const value = values[v.name];
      if (!v.secret || value === undefined) continue;
      secrets.push(value);
      if (v.kind === 'postgres-url') {
        try {
          const password = decodeURIComponent(new URL(value).password);
          if (password !== '') secrets.push(password);
        } catch {
          /* not a URL the parser reads: the whole value is still redacted */
        }
      }
    }
  }
  const longestFirst = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return (text) => longestFirst.reduce((t, s) => t.replaceAll(s, '[redacted]'), text);
}
