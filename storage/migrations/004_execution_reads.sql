-- Read models of the execution chain (docs/EXECUTION-READS.md). Aggregates are computed here, in
-- SQL, over tables that may hold millions of rows; nothing below changes what is signed.

-- Scope matching of the capability check (spec, Authentication rule 1; actors/capability/scope.ts),
-- for the Capability condition inside aggregate queries: does any scope in `granted` (a jsonb array
-- of strings, attested.scope) grant `required`? `*` grants everything; otherwise the scopes must
-- have as many colon-separated segments, each equal or granted by a `*` segment. Property-tested
-- against scopeGrants on both storage kinds (storage/execution-reads.test.ts).
create function execution_scope_granted(granted jsonb, required text) returns boolean
language sql immutable parallel safe as $$
  select case when jsonb_typeof(granted) = 'array' then exists (
    select 1 from jsonb_array_elements(granted) as e(g)
    where jsonb_typeof(e.g) = 'string' and (
      e.g #>> '{}' = '*' or e.g #>> '{}' = required or (
        cardinality(string_to_array(e.g #>> '{}', ':')) = cardinality(string_to_array(required, ':'))
        and not exists (
          select 1 from unnest(string_to_array(e.g #>> '{}', ':'), string_to_array(required, ':')) as p(gs, rs)
          where gs <> '*' and gs is distinct from rs))))
  else false end
$$;

-- Records whose outcome is not `success` are few in a healthy chain: GET /executions/attention and
-- the outcome filter find them without walking the whole chain.
create index executions_not_success on executions (seq desc) where outcome <> 'success';

-- Per-subject pages (GET /executions/authority, GET /executions/cost) of one tenant, in subject order.
create index executions_tenant_subject on executions (tenant_id, subject) where tenant_id is not null;
