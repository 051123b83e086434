import type { GrantModule } from './types.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import { refreshTokenGrant } from './refresh-token.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import { deviceCodeGrant } from './device-code.ts';
import { tokenExchangeGrant } from './token-exchange.ts';

/** The grants the token endpoint answers (grants/README.md): adding one is one line here. */
export const GRANTS: readonly GrantModule[] = Object.freeze([
  clientCredentialsGrant,
  refreshTokenGrant,
  authorizationCodeGrant,
  deviceCodeGrant,
  tokenExchangeGrant,
]);

export type { GrantModule, TokenToMint } from './types.ts';
