import type { GrantModule } from './types.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import { refreshTokenGrant } from './refresh-token.ts';
import { tokenExchangeGrant } from './token-exchange.ts';

/** The grants the token endpoint answers (grants/README.md): adding one is one line here. */
export const GRANTS: readonly GrantModule[] = Object.freeze([
  clientCredentialsGrant,
  refreshTokenGrant,
  tokenExchangeGrant,
]);

export type { GrantModule, TokenToMint } from './types.ts';
