import { Type, type Static } from 'typebox';
import type { TrustedIssuers } from '../../core/federation/index.ts';

/** The trusted-issuer file in force, as `GET /oauth/issuers` shows it: no key material, where the keys come from. */
export const TrustedIssuersViewSchema = Type.Object(
  {
    issuers: Type.Array(
      Type.Object({
        issuer: Type.String(),
        audience: Type.String({ description: 'The aud its tokens must carry' }),
        jwksSource: Type.Union([Type.Literal('inline'), Type.Literal('uri')], { description: 'Keys given in the file, or fetched from its jwksUri' }),
        subjects: Type.Array(
          Type.Object({
            match: Type.String({ description: "Glob on the token's sub" }),
            scope: Type.Array(Type.String(), { description: 'The ceiling of an exchanged token' }),
            maxLifetime: Type.String({ description: 'The longest life of an exchanged token, e.g. 15m, 1h' }),
          }),
        ),
      }),
    ),
  },
  { description: 'SUITE_OAUTH_TRUSTED_ISSUERS as the OAuth actor holds it; empty when unset' },
);

/** Seconds in the file's own spelling: the largest unit that divides them. */
export function lifetimeText(seconds: number): string {
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}

export function issuersView(trust: TrustedIssuers | undefined): Static<typeof TrustedIssuersViewSchema> {
  return {
    issuers: (trust?.issuers ?? []).map((i) => ({
      issuer: i.issuer,
      audience: i.audience,
      jwksSource: i.jwks !== undefined ? ('inline' as const) : ('uri' as const),
      subjects: i.subjects.map((r) => ({ match: r.match, scope: [...r.scope], maxLifetime: lifetimeText(r.maxLifetimeSeconds) })),
    })),
  };
}
