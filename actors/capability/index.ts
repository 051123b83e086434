/** Token minting and checking (over the key ring and scopes of core/capability). */
export { mintToken, verifyToken, TOKEN_TYPE, type CapabilityClaims, type MintInput, type Minted } from './jwt.ts';
export { TokenChecker, type RevocationLookup, type CheckResult, type TokenCheckerOptions } from './verifier.ts';
