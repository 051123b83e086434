/** Model pins: approved baselines, supersede, and attestations compared field by field. */
export { ModelActor } from './actor.ts';
