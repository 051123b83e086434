-- The scheduler service (docs/SCHEDULER.md). Every row lives in a namespace: the tenant of the
-- caller that made it, or '' for calls without a tenant. Ids are unique within a namespace.

create table scheduler_schedules (
  namespace    text not null,
  id           text not null,
  cron         text not null,
  timezone     text,
  task         jsonb not null,
  retry        jsonb not null,
  timeout_ms   integer not null,
  -- The creator as the edge established it: every firing's trace is recorded in its name.
  owner        jsonb not null,
  state        text not null check (state in ('active', 'paused')),
  -- The occurrence a replica claims next; null while paused.
  next_run_at  timestamptz,
  last_fired_at timestamptz,
  firings      integer not null default 0,
  created_at   timestamptz not null default now(),
  updated_at   timestamptz not null default now(),
  primary key (namespace, id)
);
create index scheduler_schedules_due on scheduler_schedules (next_run_at) where state = 'active';

create table scheduler_tasks (
  namespace     text not null,
  id            text not null,
  -- 0 high, 1 normal, 2 low: claimed in that order, then by the time they became runnable.
  priority      smallint not null check (priority between 0 and 2),
  task          jsonb not null,
  retry         jsonb not null,
  timeout_ms    integer not null,
  owner         jsonb not null,
  -- Set for a schedule's firing: (schedule_id, due_at) is unique, so a firing runs once.
  schedule_id   text,
  due_at        timestamptz,
  state         text not null check (state in ('queued', 'running', 'retrying', 'succeeded', 'failed', 'dead')),
  attempts      integer not null default 0,
  run_after     timestamptz not null,
  -- A running task belongs to its worker until lease_until; past it, any replica takes it back.
  lease_until   timestamptz,
  leased_by     text,
  last_error    text,
  last_status   integer,
  created_at    timestamptz not null default now(),
  started_at    timestamptz,
  finished_at   timestamptz,
  updated_at    timestamptz not null default now(),
  primary key (namespace, id)
);
create unique index scheduler_tasks_firing on scheduler_tasks (namespace, schedule_id, due_at) where schedule_id is not null;
create index scheduler_tasks_runnable on scheduler_tasks (priority, run_after) where state in ('queued', 'retrying');
create index scheduler_tasks_leases on scheduler_tasks (lease_until) where state = 'running';
create index scheduler_tasks_page on scheduler_tasks (namespace, created_at, id);

-- What the scheduler did, for GET /runtime/logs: never bodies or header values.
create table scheduler_events (
  seq         bigserial primary key,
  namespace   text not null,
  at          timestamptz not null default now(),
  kind        text not null,
  task_id     text,
  schedule_id text,
  attempt     integer,
  detail      text not null default ''
);
create index scheduler_events_namespace on scheduler_events (namespace, seq);
