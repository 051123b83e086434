-- The execution chain as a transparency log (docs/TRACE-FORMAT.md, "The transparency log"): the
-- RFC 6962 tree over the records, kept as C2SP tlog-tiles. A tile row holds the hashes known so far
-- of tile (level, idx): 32 bytes each, 256 when full. The tree is derived from the chain alone, so
-- these rows can always be rebuilt from the records; they are kept because retention prunes
-- records and their leaf hashes must outlive them.
create table execution_log_tiles (
  level smallint not null check (level between 0 and 63),
  idx bigint not null check (idx >= 0),
  hashes bytea not null check (length(hashes) between 32 and 8192 and length(hashes) % 32 = 0),
  primary key (level, idx)
);

-- How far the tree goes: one row. `peaks` are the roots of the perfect subtrees the leaves
-- decompose into (the right border, 32 bytes each, largest first): enough to resume appending.
create table execution_log_state (
  id smallint primary key check (id = 1),
  size bigint not null check (size >= 0),
  root bytea not null check (length(root) = 32),
  peaks bytea not null check (length(peaks) % 32 = 0),
  updated_at timestamptz not null default now()
);

-- Signed checkpoints (C2SP tlog-checkpoint notes) as published, and the cosignatures witnesses
-- added (`cosigned`: the note with every cosignature line). Kept so a pruned record's route can
-- name the checkpoint that covered it, and a witness can be caught up from any size it saw.
create table execution_log_checkpoints (
  size bigint primary key check (size >= 0),
  root bytea not null check (length(root) = 32),
  note text not null,
  -- The signed-note verifier key that signed `note`: GET /executions/log/vkey answers the newest.
  vkey text not null,
  cosigned text,
  created_at timestamptz not null default now()
);

-- Records pruned under retention (docs/TENANCY.md): which seq, which tenant, and when; the leaf
-- hash stays in execution_log_tiles.
create table execution_log_pruned (
  seq bigint primary key,
  id text collate "C" not null unique,
  tenant_id text collate "C",
  pruned_at timestamptz not null default now()
);
