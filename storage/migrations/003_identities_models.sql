-- Identities (spec, "Identity"): a subject enrolled with an Ed25519 public key. Once enrolled, tokens
-- in its name need proof of the private key (Authentication rule 7). Suspension is final: the row
-- stays (its key proved past tokens) and the subject cannot be enrolled again (docs/IDENTITIES.md).
create table identities (
  subject text primary key,
  kind text not null check (kind in ('agent', 'human', 'service')),
  -- SPKI PEM as re-exported by node:crypto, so one key has one spelling.
  public_key_pem text not null,
  status text not null default 'active' check (status in ('active', 'suspended')),
  enrolled_at timestamptz not null default now(),
  enrolled_by text not null,
  suspension_reason text,
  suspended_at timestamptz,
  suspended_by text,
  check ((status = 'suspended') = (suspended_at is not null and suspension_reason is not null))
);

-- Challenge nonces: single use (consumed by a delete ... returning inside the issuing transaction),
-- short-lived, and only for an enrolled subject. Expired rows are pruned; they never verify anyway.
create table identity_nonces (
  nonce text primary key,
  subject text not null references identities (subject) on delete cascade,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index identity_nonces_expires on identity_nonces (expires_at);
create index identity_nonces_subject on identity_nonces (subject);

-- Model pins (spec, "Model pin"): numbered baselines per name. Replacing one is the supersede
-- operation only, which closes the current baseline and adds the next; nothing is ever deleted.
create table model_pins (
  name text not null,
  baseline int not null check (baseline >= 1),
  provider text not null,
  model text not null,
  model_version text not null,
  approved_by text not null,
  basis text not null,
  approved_at timestamptz not null default now(),
  recorded_by text not null,
  supersedes int check (supersedes = baseline - 1),
  superseded_at timestamptz,
  primary key (name, baseline)
);
-- At most one current baseline per name.
create unique index model_pins_current on model_pins (name) where superseded_at is null;

-- Every attestation, as claimed and as compared (the system records, it does not judge: core rule 4).
create table model_attestations (
  id text primary key,
  name text not null,
  baseline int not null,
  provider text not null,
  model text not null,
  model_version text not null,
  state text not null check (state in ('MATCHED', 'FAILED')),
  drift jsonb not null,
  finding text not null,
  attested_at timestamptz not null default now(),
  attested_by text not null,
  foreign key (name, baseline) references model_pins (name, baseline)
);
create index model_attestations_name_at on model_attestations (name, attested_at desc, id);
