-- Every attempt that ended, with the execution record it was signed as (GET /queue/{id}/status,
-- `history`): the dashboard's task page links each attempt to its trace. An attempt whose worker
-- died has no row (the task's lease was reclaimed, and its log says so).
create table scheduler_attempts (
  namespace   text not null,
  task_id     text not null,
  attempt     integer not null,
  started_at  timestamptz not null,
  ended_at    timestamptz not null default now(),
  outcome     text not null,
  status      integer,
  error       text,
  -- The id of the attempt's record on the execution chain; null when it could not be recorded.
  trace_id    text,
  primary key (namespace, task_id, attempt)
);
