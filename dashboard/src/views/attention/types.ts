/** `GET /executions/attention` (docs/EXECUTION-READS.md). */
export type ReasonKind = 'outcome' | 'identity' | 'capability' | 'governance';
export const REASON_KINDS: readonly ReasonKind[] = ['outcome', 'identity', 'capability', 'governance'];

export interface AttentionRecord {
  id: string;
  seq: number;
  timestamp: string;
  subject: string;
  module: string;
  action: string;
  outcome: string;
  reasons: { kind: ReasonKind; field: string; state?: string; detail: string }[];
}
export interface AttentionPage {
  records: AttentionRecord[];
  nextCursor: string | null;
}

/** `GET /executions/authority`: authority exercised per subject, from the records. */
export interface SubjectAuthority {
  subject: string;
  records: number;
  firstSeen: string;
  lastSeen: string;
  scopes: { scope: string; count: number }[];
  modules: { module: string; count: number }[];
  actions: { module: string; action: string; count: number }[];
  outcomes: { outcome: string; count: number }[];
  capability: { state: string; count: number }[];
  truncated: boolean;
}
export interface AuthorityPage {
  subjects: SubjectAuthority[];
  nextCursor: string | null;
}
