/** Revocations: the actor that records and broadcasts them, and the view every edge keeps. */
export { RevocationActor, type RevocationActorOptions } from './actor.ts';
export { RevocationView, type RevocationViewOptions } from './view.ts';
