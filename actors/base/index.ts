/** What every actor builds on: the bus actor's lifecycle. */
export { BusActor } from './bus-actor.ts';
export { replyOf, unavailableData } from './reply.ts';
