import type { ConfigReader } from './reader.ts';

export interface AuditConfig {
  /**
   * `SUITE_AUDIT_JOURNAL_DIR`: this process's audit journal (actors/audit/journal.ts); default
   * `<SUITE_DATA_DIR>/audit-journal`; undefined (no data folder): decisions wait for the chain.
   */
  readonly auditJournalDir: string | undefined;
}

export function auditConfig({ str }: ConfigReader, dataDir: string | undefined): AuditConfig {
  return { auditJournalDir: str('SUITE_AUDIT_JOURNAL_DIR') ?? (dataDir !== undefined ? `${dataDir}/audit-journal` : undefined) };
}
