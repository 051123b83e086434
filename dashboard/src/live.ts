import { createSignal } from 'solid-js';

export type ServiceHealth =
  | { service: string; state: 'ready'; checkedAt: string; latencyMs: number; checks: Record<string, boolean> }
  | { service: string; state: 'not-ready'; checkedAt: string; latencyMs: number; checks: Record<string, boolean>; reason: string }
  | { service: string; state: 'unknown'; checkedAt: string; reason: string };

export interface TraceAppended {
  kind: 'trace.appended';
  id: string;
  seq: number;
  hash: string;
  subject: string;
  outcome: string;
}

export interface BenchProgress {
  kind: 'bench.progress';
  jobId: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  done: number;
  total: number;
  tenantId?: string;
}
export interface SchedulerEvent {
  kind: 'scheduler.event';
  /** `kind`: schedule-created, -fired, -paused, -resumed, -deleted; task-queued, -attempt, -reclaimed, -dead. */
  event: { namespace: string; kind: string; taskId: string | null; scheduleId: string | null; attempt: number | null; detail: string; at: string };
}
export interface Revocation {
  kind: 'revocation';
  jti: string;
  exp: number;
}
/** The trust service wrote something (`what`: record-event, appeal, decide-appeal, create-dispute, …): read again. */
export interface TrustChanged {
  kind: 'trust.changed';
  what: string;
  id?: string;
  subjectId?: string;
  tenantId?: string;
}

/** A held MCP gateway call changed (`what`: held, decided, ran): the approvals inbox reads again. */
export interface ApprovalChanged {
  kind: 'approval.changed';
  what: 'held' | 'decided' | 'ran';
  id: string;
  status: string;
  server: string;
  tool: string;
  tenantId?: string;
}

/** The socket's events a view may follow (docs/DASHBOARD.md, "The socket"). */
export type LiveEvent = TraceAppended | BenchProgress | SchedulerEvent | Revocation | TrustChanged | ApprovalChanged;

type Message =
  | { kind: 'hello'; sub: string; scope: string[]; expiresAt: number | null; services: ServiceHealth[] }
  | { kind: 'health'; services: ServiceHealth[] }
  | LiveEvent
  | { kind: 'bye'; reason: string };

export type Connection = { state: 'closed' | 'connecting' | 'open'; reason: string };

const PROTOCOL = 'suite.live.v1';
/** Closed by the server because the token ended (revoked, expired): no retry with the same token. */
const TOKEN_ENDED = 4401;

const [connection, setConnection] = createSignal<Connection>({ state: 'closed', reason: 'no token pasted' });
const [health, setHealth] = createSignal<{ services: ServiceHealth[]; receivedAt: number } | null>(null);
const [who, setWho] = createSignal<{ sub: string; scope: string[] } | null>(null);
const listeners = new Set<(e: LiveEvent) => void>();

export { connection, health, who };

/** Follow one kind of live event; returns the function that stops following (call it in onCleanup). */
export function onLive<K extends LiveEvent['kind']>(kind: K, listener: (e: Extract<LiveEvent, { kind: K }>) => void): () => void {
  const l = (e: LiveEvent) => {
    if (e.kind === kind) listener(e as Extract<LiveEvent, { kind: K }>);
  };
  listeners.add(l);
  return () => listeners.delete(l);
}

export function onTrace(listener: (t: TraceAppended) => void): () => void {
  return onLive('trace.appended', listener);
}

let socket: WebSocket | null = null;
let retry: number | undefined;

/** Connects with the token (as a subprotocol: browsers set no headers on a socket); reconnects until told the token ended. */
export function connect(token: string | null): void {
  disconnect();
  if (token === null) {
    setConnection({ state: 'closed', reason: 'no token pasted' });
    return;
  }
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/live`;
  setConnection({ state: 'connecting', reason: 'connecting to the live socket' });
  const ws = new WebSocket(url, [PROTOCOL, `bearer.${token}`]);
  socket = ws;
  let bye = '';
  ws.onopen = () => setConnection({ state: 'open', reason: '' });
  ws.onmessage = (event) => {
    const m = JSON.parse(String(event.data)) as Message;
    if (m.kind === 'hello') {
      setWho({ sub: m.sub, scope: m.scope });
      if (m.services.length > 0) setHealth({ services: m.services, receivedAt: Date.now() });
    } else if (m.kind === 'health') setHealth({ services: m.services, receivedAt: Date.now() });
    else if (m.kind === 'bye') bye = m.reason;
    else for (const l of listeners) l(m);
  };
  ws.onclose = (event) => {
    if (socket !== ws) return;
    socket = null;
    setHealth(null);
    if (event.code === TOKEN_ENDED) {
      setConnection({ state: 'closed', reason: `the live socket closed: ${bye || event.reason}` });
      return;
    }
    // A refused upgrade (bad token, no revocation view) looks like 1006 here: say so, retry slowly.
    setConnection({ state: 'closed', reason: `live socket closed (${event.code}${bye ? `: ${bye}` : ''}); retrying` });
    retry = window.setTimeout(() => connect(token), 2000);
  };
}

export function disconnect(): void {
  if (retry !== undefined) window.clearTimeout(retry);
  retry = undefined;
  const s = socket;
  socket = null;
  s?.close(1000);
  setHealth(null);
  setWho(null);
}
