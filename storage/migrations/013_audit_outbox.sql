-- One durable write per append (issue 34, item 1; docs/DECISIONS.md, "The append's audit entry in
-- its record's commit"): the audit entry of the decision that let an append through is inserted
-- here by the same statement that inserts the record, so the record's commit makes both durable
-- and the edge's journal need not sync for it. The edge's audit sink still sends the entry to the
-- audit chain (batched, off the answer's path); the audit chain's leader deletes the rows whose
-- entries the chain has, and appends those an edge never sent (it died first).
create table audit_outbox (
  id text collate "C" primary key,
  entry jsonb not null,
  created_at timestamptz not null default now()
);
create index audit_outbox_created on audit_outbox (created_at);
