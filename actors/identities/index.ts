/** Identities: enrolment, challenges, suspension, and the proof check token issuance runs. */
export { IdentityActor, DEFAULT_NONCE_TTL_MS, type IdentityActorOptions } from './actor.ts';
export { proveIssuance, type IssuanceVerdict, type Proof } from './issuance.ts';
export { parseEd25519PublicKey, proofSignatureVerifies, type ParsedPublicKey } from './public-key.ts';
