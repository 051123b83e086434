/**
 * Follow the execution chain from a service of your own: every record once, in sequence order,
 * across restarts of this process (docs/EVENTS.md, "Following the chain").
 *
 * Live records come as `suite.events.v1.executions.appended` events on NATS (at most once, no
 * replay); what this process did not see — before its first start, while it was stopped, or a gap
 * in the live events — it reads from the chain's export (`GET /executions/export?from=<seq>`), the
 * chain's own replay. It keeps the last sequence it handled in a state file, written after each
 * record (write-then-rename), so a restart resumes after it. A kill -9 between handling a record and
 * writing the file hands that record over again on restart: handle records idempotently by `seq`.
 *
 *   FOLLOW_NATS_URL=nats://127.0.0.1:4222 FOLLOW_NATS_USER=events FOLLOW_NATS_PASSWORD=… \
 *   SUITE_TOKEN_URL=http://127.0.0.1:8081 SUITE_TOKEN=<a token granting execution:read> \
 *   FOLLOW_STATE=./follow-traces.json node client/examples/follow-traces.ts
 *
 * Prints one JSON line per record: {"seq","id","hash","subject","outcome","from":"export"|"live"}.
 */
import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface FollowOptions {
  natsUrl: string;
  natsUser?: string | undefined;
  natsPassword?: string | undefined;
  /** The deployment's SUITE_BUS_NAMESPACE, if it sets one. */
  namespace?: string | undefined;
  tokenUrl: string;
  token: string;
  stateFile: string;
  /** Called once per record, in sequence order; the state file moves on once it resolves. */
  handle: (record: FollowedRecord) => Promise<void> | void;
  signal: AbortSignal;
}

export interface FollowedRecord {
  seq: number;
  id: string;
  hash: string;
  subject: string;
  outcome: string;
  from: 'export' | 'live';
}

const APPENDED = 'suite.events.v1.executions.appended';

export async function followTraces(o: FollowOptions): Promise<void> {
  let last = await readLastSeq(o.stateFile);
  const nc: NatsConnection = await connect({
    servers: o.natsUrl,
    name: 'follow-traces',
    ...(o.natsUser !== undefined ? { user: o.natsUser, pass: o.natsPassword ?? '' } : {}),
  });
  // Subscribe before catching up, so nothing appended during the catch-up falls between the two.
  const sub = nc.subscribe(o.namespace ? `${o.namespace}.${APPENDED}` : APPENDED);
  o.signal.addEventListener('abort', () => void sub.unsubscribe(), { once: true });
  const accept = async (record: FollowedRecord) => {
    await o.handle(record);
    last = record.seq;
    await writeLastSeq(o.stateFile, last);
  };
  const catchUp = async () => {
    for (const record of await exportFrom(o, last + 1)) if (record.seq > last) await accept(record);
  };
  try {
    await catchUp();
    for await (const m of sub) {
      const e = m.json<{ id: string; seq: number; hash: string; subject: string; outcome: string }>();
      if (e.seq <= last) continue; // already read from the export
      if (e.seq === last + 1) await accept({ ...e, from: 'live' });
      else await catchUp(); // a gap: live events are at most once; the export has every record
    }
  } finally {
    await nc.drain().catch(() => nc.close());
  }
}

/** The records from `from` to the head, each checked against its hash; a file cut short is refused. */
async function exportFrom(o: FollowOptions, from: number): Promise<FollowedRecord[]> {
  const res = await fetch(`${o.tokenUrl}/executions/export?from=${from}`, { headers: { authorization: `Bearer ${o.token}` }, signal: o.signal });
  if (!res.ok) throw new Error(`GET /executions/export answered ${res.status}: ${await res.text()}`);
  const lines = (await res.text()).split('\n').filter((l) => l !== '');
  if (!lines.at(-1)?.startsWith('# {"end"')) throw new Error('the export was cut short (no end line): try again');
  const records: FollowedRecord[] = [];
  for (const line of lines) {
    if (line.startsWith('#')) continue;
    // `<hash> <signature> <signed JSON>` (docs/TRACE-FORMAT.md, "Export file").
    const [hash, , ...rest] = line.split(' ');
    const signed = rest.join(' ');
    if (createHash('sha256').update(signed).digest('hex') !== hash) throw new Error(`a record's content does not match its hash ${hash}`);
    const r = JSON.parse(signed) as { seq: number; id: string; subject: string; outcome: string };
    records.push({ seq: r.seq, id: r.id, hash: hash!, subject: r.subject, outcome: r.outcome, from: 'export' });
  }
  return records;
}

async function readLastSeq(file: string): Promise<number> {
  try {
    return (JSON.parse(await readFile(file, 'utf8')) as { lastSeq: number }).lastSeq;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw e;
  }
}

async function writeLastSeq(file: string, lastSeq: number): Promise<void> {
  await writeFile(`${file}.tmp`, JSON.stringify({ lastSeq }));
  await rename(`${file}.tmp`, file);
}

if (import.meta.main) {
  const env = process.env;
  const need = (name: string) =>
    env[name] ??
    (() => {
      throw new Error(`set ${name} (see the comment at the top of this file)`);
    })();
  const stop = new AbortController();
  process.once('SIGTERM', () => stop.abort());
  process.once('SIGINT', () => stop.abort());
  const following = followTraces({
    natsUrl: need('FOLLOW_NATS_URL'),
    natsUser: env.FOLLOW_NATS_USER,
    natsPassword: env.FOLLOW_NATS_PASSWORD,
    namespace: env.SUITE_BUS_NAMESPACE,
    tokenUrl: env.SUITE_TOKEN_URL ?? 'http://127.0.0.1:8081',
    token: need('SUITE_TOKEN'),
    stateFile: env.FOLLOW_STATE ?? 'follow-traces.json',
    signal: stop.signal,
    handle: (r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
    },
  });
  // Stopped while reading the export: the state file holds the last record handled; nothing is lost.
  await following.catch((e: unknown) => {
    if (!stop.signal.aborted) throw e;
  });
}
