-- The trust service's tables (docs/TRUST.md). Every row carries the tenant of the token that made it
-- (null without one); a tenant's token reads only its tenant's rows.

create table trust_subjects (
  tenant_key text not null,              -- tenant id, or '' for rows made without a tenant
  subject_id text not null,
  subject_type text not null,
  first_seen_at timestamptz not null default now(),
  primary key (tenant_key, subject_id)
);

create table trust_events (
  id text primary key,
  tenant_id text,
  subject_id text not null,
  subject_type text not null,
  kind text not null,
  summary text,
  proof jsonb not null,
  recorded_by text not null,
  recorded_at timestamptz not null default now()
);
create index trust_events_subject on trust_events (subject_id, recorded_at, id);

create table trust_appeals (
  id text primary key,
  event_id text not null references trust_events (id),
  tenant_id text,
  reason text not null,
  appellant text not null,
  state text not null default 'pending',
  created_at timestamptz not null default now(),
  decided_at timestamptz,
  decided_by text,
  decision_reason text
);
create index trust_appeals_event on trust_appeals (event_id, created_at);
-- One appeal of an event is pending at a time.
create unique index trust_appeals_one_pending on trust_appeals (event_id) where state = 'pending';

create table trust_disputes (
  id text primary key,
  tenant_id text,
  title text not null,
  question text not null,
  irreversible boolean not null,
  state text not null default 'pending',
  opinions jsonb not null,
  arbitration jsonb,
  decision jsonb,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index trust_disputes_state on trust_disputes (state, created_at);

create table trust_contracts (
  id text primary key,
  tenant_id text,
  title text not null,
  agent_id text not null,
  operator_id text not null,
  terms jsonb not null,
  state text not null default 'active',
  state_reason text,
  created_by text not null,
  created_at timestamptz not null default now(),
  state_changed_at timestamptz not null default now()
);

create table trust_breaches (
  id text primary key,
  contract_id text not null references trust_contracts (id),
  tenant_id text,
  party text not null,
  agent_id text not null,
  term text,
  description text not null,
  state text not null default 'open',
  reported_by text not null,
  reported_at timestamptz not null default now(),
  remediated_at timestamptz,
  remediated_by text,
  remediation text
);
create index trust_breaches_contract on trust_breaches (contract_id, reported_at);
create index trust_breaches_agent on trust_breaches (agent_id) where party = 'agent';

create table trust_chains (
  id text primary key,
  tenant_id text,
  started_at timestamptz not null default now(),
  last_activity_at timestamptz not null default now(),
  last_outcome text not null,
  interactions integer not null default 0,
  max_depth integer not null default 0
);
create index trust_chains_recent on trust_chains (last_activity_at desc, id);
create index trust_chains_pending on trust_chains (last_activity_at, id) where last_outcome = 'pending';

create table trust_interactions (
  id text primary key,
  tenant_id text,
  chain_id text not null references trust_chains (id),
  parent_id text references trust_interactions (id),
  caller text not null,
  callee text not null,
  outcome text not null,
  execution_id text,
  depth integer not null,
  path text[] not null,
  children integer not null default 0,
  recorded_by text not null,
  at timestamptz not null default now()
);
create index trust_interactions_chain on trust_interactions (chain_id, at, id);
create index trust_interactions_execution on trust_interactions (execution_id) where execution_id is not null;

create table trust_observations (
  id text primary key,
  interaction_id text not null references trust_interactions (id),
  tenant_id text,
  observer text not null,
  outcome text not null,
  note text,
  observed_at timestamptz not null default now()
);
create index trust_observations_interaction on trust_observations (interaction_id, observed_at);

create table trust_anomalies (
  key text primary key,
  tenant_id text,
  kind text not null,
  chain_id text not null,
  records jsonb not null,
  detail text not null,
  detected_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index trust_anomalies_recent on trust_anomalies (updated_at desc, key);

create table trust_execution_links (
  execution_id text not null,
  interaction_id text not null references trust_interactions (id),
  outcome text not null,
  seen_at timestamptz not null default now(),
  primary key (execution_id, interaction_id)
);
