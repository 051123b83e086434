/** Model pins: approved baselines, supersede, and attestations compared field by field. */
export { ModelActor, type ModelActorOptions } from './actor.ts';
export { compareFingerprint, type Comparison } from './compare.ts';
