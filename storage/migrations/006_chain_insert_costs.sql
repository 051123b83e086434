-- What each appended record costs the database (measured in docs/PERFORMANCE.md): every btree
-- index on a text column is an insertion with string comparisons at each level.
--
-- 1. Hashes, ids, timestamps and names compare byte for byte (COLLATE "C"). Under a locale such
--    as C.UTF-8 or en_US each comparison went through strcoll with copies of both strings (~20% of
--    an executions insert on Postgres 15). For UTF-8 text, byte order is code point order, which is
--    also what C.UTF-8 sorts by: orderings by subject stay as they were there, and no longer depend
--    on the database's locale elsewhere.
alter table executions
  alter column id type text collate "C",
  alter column ts type text collate "C",
  alter column subject type text collate "C",
  alter column module type text collate "C",
  alter column action type text collate "C",
  alter column outcome type text collate "C",
  alter column input_hash type text collate "C",
  alter column output_hash type text collate "C",
  alter column prev_hash type text collate "C",
  alter column hash type text collate "C",
  alter column key_id type text collate "C",
  alter column idempotency_key type text collate "C",
  alter column tenant_id type text collate "C";
alter table audit_entries
  alter column id type text collate "C",
  alter column ts type text collate "C",
  alter column subject type text collate "C",
  alter column tenant_id type text collate "C",
  alter column prev_hash type text collate "C",
  alter column hash type text collate "C";

-- 2. `hash` is never looked up, and its uniqueness adds nothing: two records differ at least in
--    `seq`. What keeps the chain from forking stays: one record per `seq` (primary key), no two
--    records extending the same predecessor (`prev_hash` unique), and the fenced head.
alter table executions drop constraint executions_hash_key;
alter table audit_entries drop constraint audit_entries_hash_key;

-- 3. Timestamps grow with `seq` (a record is stamped as it arrives and appended in order), so a
--    block range index serves the `from`/`to` filters at a fraction of a btree's cost per insert.
drop index executions_ts;
create index executions_ts on executions using brin (ts);
drop index audit_entries_ts;
create index audit_entries_ts on audit_entries using brin (ts);
