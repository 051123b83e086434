/** What every actor builds on: the bus actor's lifecycle. */
export { BusActor, type ActorState } from './bus-actor.ts';
export { replyOf, errorData, unavailableData } from './reply.ts';
