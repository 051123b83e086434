-- The W3C traceparent of the request that submitted the job (issue 36, item 4): the `bench.run`
-- span links to it. Null when nothing was traced then.
alter table bench_jobs add column trace_parent text;
