-- Tenancy (spec, "Tenant", "Usage report", "Limits"; docs/TENANCY.md).

-- Tenants. The API key itself is never stored: only the hex SHA-256 of a 256-bit random key, looked
-- up by equality on every call that carries X-Suite-Tenant-Key (why a fast hash is right for a
-- high-entropy key: docs/TENANCY.md). The plan is not constrained here: plans live in code
-- (actors/tenancy/plans.ts) and the actor refuses unknown ones.
create table tenants (
  id text primary key check (id ~ '^ten_[0-9a-f]{24}$'),
  name text not null check (length(name) between 1 and 200),
  plan text not null,
  status text not null default 'active' check (status in ('active', 'suspended')),
  status_reason text,
  -- Who suspended it: a payment.succeeded event reactivates only what billing suspended.
  suspended_by text check (suspended_by in ('operator', 'billing')),
  -- The billing provider's customer id: unique, so a billing event names at most one tenant.
  external_ref text unique,
  email text,
  key_hash text not null unique check (key_hash ~ '^[0-9a-f]{64}$'),
  key_rotated_at timestamptz,
  created_at timestamptz not null default now(),
  check ((status = 'suspended') = (suspended_by is not null))
);
create index tenants_created on tenants (created_at, id);

-- Metered usage per tenant, UTC calendar month (`YYYY-MM`) and metric. One row per triple, raised by
-- one conditional upsert, so concurrent callers in any number of processes never pass a limit.
create table tenant_usage (
  tenant_id text not null references tenants (id) on delete cascade,
  period text not null check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  metric text not null check (metric in ('agents', 'validations', 'schedules', 'benchmarkRuns')),
  used bigint not null check (used >= 0),
  primary key (tenant_id, period, metric)
);
create index tenant_usage_period on tenant_usage (period, tenant_id);

-- Billing webhook events already processed, by the provider's event id: a replay is answered
-- without being applied twice.
create table billing_events (
  id text primary key,
  type text not null,
  outcome text not null,
  received_at timestamptz not null default now()
);

-- Public signups per client address (SHA-256 of it, never the address) and clock hour.
create table signup_attempts (
  ip_hash text not null,
  window_start timestamptz not null,
  attempts int not null check (attempts >= 1),
  primary key (ip_hash, window_start)
);
create index signup_attempts_window on signup_attempts (window_start);
