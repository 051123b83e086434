/** What every actor builds on: the bus actor's lifecycle. */
export { BusActor, type ActorState } from './bus-actor.ts';
/** Turning a handler's outcome into a bus reply, for actors outside actors/. */
export { replyOf } from '../errors.ts';
