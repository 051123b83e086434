/** Scope entries typed by a person: separated by spaces or commas, duplicates dropped. */
export function scopesOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((s) => s.length > 0))];
}

/** The token request the form makes; `aud` only when given. */
export function tokenRequest(f: { sub: string; scope: string[]; expiresIn: string; aud: string }) {
  return { sub: f.sub.trim(), scope: f.scope, expiresIn: f.expiresIn.trim(), ...(f.aud.trim() ? { aud: f.aud.trim() } : {}) };
}
