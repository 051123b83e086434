/** The token actor: issue, validate, revoke. */
export { TokenActor } from './actor.ts';
