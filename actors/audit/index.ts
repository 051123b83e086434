/** The audit chain: its writer on the bus, its reads, and the batching sink every recorder uses. */
export { AuditWriterActor } from './writer-actor.ts';
export { AuditReaderActor, verifyAuditChain } from './reader-actor.ts';
export { AuditBatcher } from './sink.ts';
export { auditChainSpec } from './chain-spec.ts';
