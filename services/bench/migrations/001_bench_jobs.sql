-- Benchmark jobs (services/bench, docs/BENCHMARK.md). A job is claimed by one runner at a time: the
-- claim sets claimed_by and a lease the runner renews while it measures; a job whose lease ran out
-- (its runner died) is taken again by another runner, resumed from the start or failed.
create table bench_jobs (
  id text primary key,
  tenant_id text,
  created_by text not null,
  name text,
  provider text not null,
  model text,
  target text,
  -- What the runner needs to call the target (method, headers, body, base URL). Never returned by
  -- a read: headers may carry a credential of the caller's own.
  request jsonb not null,
  settings jsonb not null,
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
  progress_done integer not null default 0,
  progress_total integer not null,
  attempts integer not null default 0,
  claimed_by text,
  lease_until timestamptz,
  result jsonb,
  error jsonb,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz
);
create index bench_jobs_claim on bench_jobs (created_at) where status in ('queued', 'running');
create index bench_jobs_history on bench_jobs (created_at desc, id desc);
create index bench_jobs_name on bench_jobs (name, created_at desc) where name is not null;

-- Core benchmarks (POST /bench/core): one row per run, with the machine it ran on.
create table bench_core_runs (
  id text primary key,
  machine_key text not null,
  machine jsonb not null,
  result jsonb not null,
  created_by text not null,
  created_at timestamptz not null default now()
);
create index bench_core_runs_machine on bench_core_runs (machine_key, created_at desc);
