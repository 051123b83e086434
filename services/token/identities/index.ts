/** Identities: enrolment, challenges, suspension, and the proof check token issuance runs. */
export { IdentityActor } from './actor.ts';
export { proveIssuance } from './issuance.ts';
