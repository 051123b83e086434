/** Revocations: the actor that records and broadcasts them, and the view every edge keeps. */
export { RevocationActor } from './actor.ts';
export { RevocationView } from './view.ts';
