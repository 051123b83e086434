/**
 * The trust listener's answers as the dashboard reads them (docs/TRUST.md). Declared here, not
 * imported from services/trust: the browser bundle takes nothing from the server's code.
 */
export type Proof = { executionId: string } | { auditEntryId: string } | { url: string; sha256: string };

export interface Appeal {
  id: string;
  eventId: string;
  reason: string;
  appellant: string;
  state: string;
  createdAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  decisionReason: string | null;
}

export interface TrustEvent {
  id: string;
  subjectId: string;
  subjectType: string;
  kind: string;
  summary: string | null;
  proof: Proof;
  recordedBy: string;
  recordedAt: string;
  appeals?: Appeal[];
}

export interface Contribution {
  source: 'event' | 'breach';
  id: string;
  reason: string;
  delta: number;
  appeal?: string;
}
export interface Exclusion {
  source: 'event' | 'breach';
  id: string;
  reason: string;
  appeal?: string;
}
export interface ScoreMethod {
  name: string;
  baseline: number;
  range: [number, number];
  eventWeights: Record<string, number>;
  breachWeights: Record<string, number>;
  documentation: string;
}
export interface Score {
  subjectId: string;
  advisory: boolean;
  score: number;
  method: string;
  baseline: number;
  unclamped: number;
  contributions: Contribution[];
  excluded: Exclusion[];
  methodDetails: ScoreMethod;
}
export interface ScoreRow {
  subjectId: string;
  score: number;
  advisory: boolean;
  contributions: number;
  excluded: number;
  explanation: string;
}

export interface Breach {
  id: string;
  contractId: string;
  party: string;
  agentId: string;
  term: string | null;
  description: string;
  state: string;
  reportedBy: string;
  reportedAt: string;
  remediatedAt: string | null;
  remediatedBy: string | null;
  remediation: string | null;
}
export interface Evidence {
  subjectId: string;
  subjectType: string;
  events: TrustEvent[];
  breaches: Breach[];
  notice: string;
}

export interface Opinion {
  participant: string;
  modelFamily?: string;
  position: string;
  confidence?: number;
  rationale?: string;
}
export interface Position {
  position: string;
  rawWeight: number;
  countedWeight: number;
  discount: number;
  share: number;
  opinions: { participant: string; modelFamily?: string; confidence: number; counted: number }[];
}
export interface Arbitration {
  method: string;
  positions: Position[];
  outcome: string;
  leading: string | null;
  leadingShare: number;
  escalate: boolean;
  reason: string;
  unknownFamily: string[];
  at: string;
  by: string;
  result: string;
}
export interface Dispute {
  id: string;
  title: string;
  question: string;
  irreversible: boolean;
  state: string;
  opinions: Opinion[];
  arbitration: Arbitration | null;
  decision: { outcome: string; reason: string; decidedBy: string; at: string; by: string } | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface Contract {
  id: string;
  title: string;
  agentId: string;
  operatorId: string;
  terms: { id: string; text: string }[];
  state: string;
  stateReason: string | null;
  createdBy: string;
  createdAt: string;
  stateChangedAt: string;
  breaches?: Breach[];
}
export interface PartyFailures {
  total: number;
  open: number;
  remediated: number;
}
export interface ContractHealth {
  contractId: string;
  state: string;
  agentId: string;
  operatorId: string;
  failures: { agent: PartyFailures; operator: PartyFailures; total: number };
  summary: string;
}

export interface Interaction {
  id: string;
  chainId: string;
  parentId: string | null;
  caller: string;
  callee: string;
  outcome: string;
  executionId: string | null;
  depth: number;
  path: string[];
  children: number;
  recordedBy: string;
  at: string;
}
export interface Observation {
  id: string;
  interactionId: string;
  kind: 'opinion';
  observer: string;
  outcome: string;
  note: string | null;
  observedAt: string;
}
export interface Anomaly {
  kind: string;
  key: string;
  chainId: string;
  detail: string;
  records: string[];
  detectedAt: string;
  updatedAt: string;
}
export interface ChainRow {
  id: string;
  startedAt: string;
  lastActivityAt: string;
  lastOutcome: string;
  interactionCount: number;
  maxDepth: number;
}
export interface ChainDetail extends ChainRow {
  stalled: boolean;
  interactions: Interaction[];
  observations: Observation[];
  executions: { executionId: string; interactionId: string; outcome: string; seenAt: string }[];
  anomalies: Anomaly[];
}
