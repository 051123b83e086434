-- The W3C traceparent of the request that queued the task (issue 36, item 4): each attempt's
-- `scheduler.attempt` span links to it, so a task is followed from its POST /queue to its runs.
-- Null when nothing was traced then (no exporter) and for schedule firings.
alter table scheduler_tasks add column trace_parent text;
