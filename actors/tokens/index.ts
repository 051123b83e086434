/** The token actor: issue, validate, revoke. */
export { TokenActor, type TokenActorOptions } from './actor.ts';
