/** `GET /audit` (services/token/routes/token.ts, AuditQuery; bus/schemas/audit.ts). */
export interface AuditEntry {
  id: string;
  seq: number;
  timestamp: string;
  subject: string;
  action: string;
  resource: string;
  result: 'allow' | 'deny';
  reason: string;
  tenantId?: string;
  prevHash: string;
  hash: string;
}
export interface AuditPage {
  entries: AuditEntry[];
  total: number;
}
export interface AuditVerification {
  valid: boolean;
  checked: number;
  headHash: string;
  brokenAt?: number;
  reason?: string;
}

/** The filters the route takes, as they sit in the link (`#/audit?subject=…&result=deny&offset=50`). */
export interface AuditFilter {
  subject?: string;
  result?: string;
  from?: string;
  to?: string;
  limit?: string;
  offset?: string;
}
export const PAGE_SIZES = ['25', '50', '100', '500'] as const;
