-- Held MCP gateway calls and their decisions (issue 33, docs/MCP.md "Approvals"). A request binds to
-- the exact call: caller, server, tool, arguments digest, policy version; it expires at expires_at.
create table mcp_approvals (
  id              text primary key,
  status          text not null check (status in ('pending', 'approved', 'denied', 'used', 'expired')),
  caller_sub      text not null,
  caller_tenant   text,
  server          text not null,
  tool            text not null,
  args            jsonb not null,
  args_digest     text not null,
  policy_version  text not null,
  rule_index      integer not null,
  rule_name       text,
  approvers       text not null,
  created_at      timestamptz not null default now(),
  expires_at      timestamptz not null,
  decided_by      text,
  decided_at      timestamptz,
  decision_reason text,
  decision_trace  text,
  used_at         timestamptz
);
-- One pending request per binding: the same call again finds it rather than making another.
create unique index mcp_approvals_one_pending on mcp_approvals (caller_sub, server, tool, args_digest, policy_version) where status = 'pending';
create index mcp_approvals_binding on mcp_approvals (caller_sub, server, tool, args_digest, policy_version, created_at desc);
create index mcp_approvals_status on mcp_approvals (status, created_at desc);

-- Budget counters: one row per budget rule (its key), caller or tenant, and fixed window.
create table mcp_budget_counts (
  rule_key     text not null,
  counted_by   text not null,
  window_start timestamptz not null,
  calls        integer not null,
  primary key (rule_key, counted_by, window_start)
);
