/** Token minting and checking (over the key ring and scopes of core/capability). */
export { mintToken, verifyToken } from './jwt.ts';
export { TokenChecker, type RevocationLookup } from './verifier.ts';
