/**
 * What the OpenAPI documents say of each operation besides its schemas: a tag, a stable
 * `operationId` (camelCase, unique in its listener's document; generated clients name their
 * methods after it, so it never changes once published) and a one-line summary.
 *
 *   schema: { ...operation('tokens', 'issueToken', 'Issue a capability token'), body: ..., response: ... }
 */

/** The tags of the documents, each with the words the document gives it. */
export const TAGS = {
  operations: 'Health, readiness, metrics, this document and capability discovery: on every listener',
  tokens: 'Capability tokens: issue, validate (with `requiredScope`), revoke (spec, "Token service")',
  audit: 'The hash-chained audit trail of every capability decision',
  executions: 'Signed, hash-chained execution traces: record, read, verify, export (docs/TRACE-FORMAT.md)',
  'transparency-log': 'The execution chain as a C2SP transparency log: checkpoints, tiles, proofs, receipts (docs/TRACE-FORMAT.md)',
  'execution-reads': 'Read models of the execution chain: conditions, explanations, lineage, aggregates (docs/EXECUTION-READS.md)',
  identities: 'Enrolled agent identities and their proof of key (docs/IDENTITIES.md)',
  models: 'Model pins, attestation and supersede (docs/MODELS.md)',
  tenancy: 'Plans, tenants, usage, signup and the billing webhook (docs/TENANCY.md)',
  policy: 'Policy generation from words, rule-based (docs/AI-POLICY.md)',
  schedules: 'Cron schedules (docs/SCHEDULER.md)',
  queue: 'The task queue (docs/SCHEDULER.md)',
  runtime: "The scheduler's runtime health and log",
  benchmarks: 'LLM and HTTP benchmark runs, reports, comparison (docs/BENCHMARK.md)',
  'core-benchmark': "The suite's own core operations, measured on this machine",
  connectors: 'The connector registry, read-only verification, actions and scaffolding (docs/CONNECTORS.md)',
  'trust-events': 'Trust events and their appeals (docs/TRUST.md)',
  'trust-scores': 'Evidence, advisory scores and their checks',
  arbitration: 'Grounding checks, arbitration and disputes',
  contracts: 'Reciprocal contracts, breaches and remediation',
  interactions: 'Agent interactions, chains and structural anomalies',
  dashboard: "The operator dashboard: its app, the listeners' health and the live socket (docs/DASHBOARD.md)",
  mcp: 'The Model Context Protocol over Streamable HTTP (docs/MCP.md)',
  oauth: 'The OAuth 2.1 authorization server: discovery, registration, token, introspection, revocation (docs/OAUTH.md)',
} as const;

export type Tag = keyof typeof TAGS;

export interface OperationDoc {
  tags: [Tag];
  operationId: string;
  summary: string;
}

const OPERATION_ID = /^[a-z][A-Za-z0-9]*$/;

/** A route's operation metadata; a malformed id throws at registration, like a malformed authority. */
export function operation(tag: Tag, operationId: string, summary: string): OperationDoc {
  if (!OPERATION_ID.test(operationId)) throw new TypeError(`operation: "${operationId}" is not a camelCase operationId`);
  return { tags: [tag], operationId, summary };
}
