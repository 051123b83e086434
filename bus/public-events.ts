import type { EventSubject } from './types.ts';
import { subjects } from './subjects.ts';

/**
 * The events an internal service may consume (docs/EVENTS.md, described in docs/asyncapi.json):
 * their subjects start with this prefix, so one NATS permission (`suite.events.v1.>`) grants them
 * all and nothing else. Every other subject of the suite is internal and may change at any release.
 */
export const PUBLIC_EVENT_PREFIX = 'suite.events.v1.';

export interface PublicEvent {
  readonly subject: EventSubject;
  /** Names the message in the AsyncAPI document. */
  readonly name: string;
  readonly title: string;
  readonly description: string;
}

/** Each public event, once; a test holds this list and the `suite.events.v1.` subjects equal. */
export const PUBLIC_EVENTS: readonly PublicEvent[] = Object.freeze([
  {
    subject: subjects.executionsAppended,
    name: 'executionAppended',
    title: 'Execution record appended',
    description:
      'Published after each commit of the execution chain, once per record, in sequence order per writer. ' +
      'Identifiers only, never payloads: read the record itself with GET /executions/{id}, or the chain from a sequence with ' +
      'GET /executions/export?from=<seq>. Delivery is at most once (NATS core): a consumer that must see every record keeps the ' +
      'last sequence it handled and reads the gap from the export (client/examples/follow-traces.ts).',
  },
  {
    subject: subjects.executionsKeyPublished,
    name: 'traceKeyPublished',
    title: 'Trace signing key published',
    description: 'A chain writer registered a new Ed25519 public key (its id); fetch it with GET /executions/keys to verify records signed by it.',
  },
  {
    subject: subjects.revocationRevoked,
    name: 'tokenRevoked',
    title: 'Capability token revoked',
    description:
      'A token (its jti) was revoked; `version` grows by one per revocation, so a consumer that sees a gap reads the whole list again. ' +
      '`exp` is when the token would have expired (after it the entry may be forgotten).',
  },
  {
    subject: subjects.schedulerEvent,
    name: 'schedulerEvent',
    title: 'Scheduler event',
    description:
      'What the scheduler committed to its log (schedule created, fired, paused, resumed, deleted; task attempt, reclaimed, dead) and task-queued. ' +
      '`namespace` is the tenant or the default namespace.',
  },
  {
    subject: subjects.trustChanged,
    name: 'trustChanged',
    title: 'Trust write took effect',
    description:
      'A trust service write took effect (`what` is its verb: record-event, appeal, create-dispute, breach, …), with the ids it names: read the subject again.',
  },
  {
    subject: subjects.approvalsChanged,
    name: 'approvalChanged',
    title: 'Held MCP gateway call changed',
    description:
      "A call an approve rule of the gateway's policy matched was held (`held`: a new request), decided (`decided`: `status` approved or denied), " +
      'or, approved, ran once (`ran`). Identifiers only, never the arguments: read GET /approvals (scope approval:read) for what would run. ' +
      "`tenantId` is the caller's tenant, absent for none.",
  },
]);
