-- Retention (docs/TENANCY.md, "Retention"; docs/TRACE-FORMAT.md, "Retention"): records and audit
-- entries older than their tenant's plan limit (`auditRetentionDays`) are pruned. A pruned record's
-- body (who did what, its input and output hashes, its attested claims) is deleted; what is kept is
-- what holds no content and lets the rest verify as the continuation of the pruned history: its seq
-- and id, the links (`prev_hash`, `hash`) and its signature over `hash` (which still verifies), and
-- the checkpoint that first covered its leaf (the leaf hash itself stays in execution_log_tiles).
-- execution_log_pruned (migration 010) was created for this and never written before: the new
-- columns are not null from the start.
alter table execution_log_pruned
  add column prev_hash text not null,
  add column hash text not null,
  add column key_id text not null,
  add column signature text not null,
  add column checkpoint_size bigint not null check (checkpoint_size >= seq);

-- The pruner's look-up: one tenant's records older than a cut-off, in seq order.
create index executions_tenant_ts on executions (tenant_id, ts) where tenant_id is not null;

-- Audit entries pruned under the same limit: the links stay (the entry's hash commits to its
-- content, which is gone), so the audit chain verifies across them.
create table audit_pruned (
  seq bigint primary key,
  id text collate "C" not null unique,
  tenant_id text collate "C",
  prev_hash text not null,
  hash text not null,
  pruned_at timestamptz not null default now()
);
create index audit_entries_tenant_ts on audit_entries (tenant_id, ts) where tenant_id is not null;
