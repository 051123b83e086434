import type { WebSocket } from 'ws';
import { subjects, type Bus, type EventOf, type Subscription } from '../../bus/index.ts';
import { scopeGrants } from '../../core/capability/index.ts';
import type { Principal } from '../../edge-http/index.ts';
import type { ServiceHealth } from './health.ts';

/**
 * The live socket's message kinds (docs/DASHBOARD.md, "The socket"). The server only speaks; what a
 * client sends is ignored.
 */
export type LiveMessage =
  | { kind: 'hello'; sub: string; scope: readonly string[]; expiresAt: number | null; services: ServiceHealth[] }
  | { kind: 'health'; services: ServiceHealth[] }
  | { kind: 'trace.appended'; id: string; seq: number; hash: string; subject: string; outcome: string }
  | { kind: 'revocation'; jti: string; exp: number }
  | ({ kind: 'bench.progress' } & EventOf<typeof subjects.benchProgress>)
  /** Nested: the scheduler's event has a `kind` of its own (`schedule-fired`, `task-attempt`, …). */
  | { kind: 'scheduler.event'; event: EventOf<typeof subjects.schedulerEvent> }
  | ({ kind: 'trust.changed' } & EventOf<typeof subjects.trustChanged>)
  | ({ kind: 'approval.changed' } & EventOf<typeof subjects.approvalsChanged>)
  | { kind: 'bye'; reason: string };

/** The subprotocol the dashboard speaks; the token travels beside it (`bearer.<token>`), never echoed. */
export const LIVE_PROTOCOL = 'suite.live.v1';
export const BEARER_PROTOCOL_PREFIX = 'bearer.';
/** Closed because the token stopped being valid (revoked, expired): the client must not retry with it. */
export const CLOSE_TOKEN_ENDED = 4401;
/**
 * Sockets one credential (a token's jti) may hold at once (issue 25, finding 6: one token opened
 * 500): enough for many tabs of one operator. Past it the new socket is closed with 1008.
 */
export const LIVE_SOCKETS_PER_CREDENTIAL = 16;

interface Client {
  socket: WebSocket;
  principal: Principal;
  timer: NodeJS.Timeout | undefined;
}

const SCOPE_TRACES = 'execution:read';
const SCOPE_REVOCATIONS = 'auth:token:revoke';
const SCOPE_BENCH = 'bench:read';
const SCOPE_TRUST = 'trust:read';
const SCOPE_APPROVALS = 'approval:read';
/** Any of these reads the scheduler's state over HTTP (queue, schedules, its log): so it may watch it. */
const SCOPES_SCHEDULER = ['queue:read', 'schedule:read', 'runtime:read'];

/**
 * The fan-out of one dashboard edge: one bus subscription per event kind for the whole process, and
 * per client a filter by its token's scopes. A client whose token is revoked (the same revocation
 * events every edge's revocation view applies) or expires is told why and closed.
 */
export class LiveHub {
  private readonly clients = new Set<Client>();
  private subscriptions: Subscription[] = [];
  private health: ServiceHealth[] = [];

  private readonly bus: Bus;

  constructor(bus: Bus) {
    this.bus = bus;
  }

  start(): void {
    this.subscriptions = [
      this.bus.subscribe(subjects.executionsAppended, ({ data }) => {
        this.broadcast((c) => canSeeTraces(c.principal), {
          kind: 'trace.appended',
          id: data.id,
          seq: data.seq,
          hash: data.hash,
          subject: data.subject,
          outcome: data.outcome,
        });
      }),
      this.bus.subscribe(subjects.revocationRevoked, ({ data }) => {
        for (const c of this.clients) {
          if (c.principal.jti === data.jti) this.end(c, 'token revoked');
        }
        this.broadcast((c) => scopeGrants(c.principal.scope, SCOPE_REVOCATIONS), { kind: 'revocation', jti: data.jti, exp: data.exp });
      }),
      // A tenant's token sees its own tenant's jobs and tasks only, as over HTTP.
      this.bus.subscribe(subjects.benchProgress, ({ data }) => {
        this.broadcast((c) => c.principal.tenantId === data.tenantId && scopeGrants(c.principal.scope, SCOPE_BENCH), { kind: 'bench.progress', ...data });
      }),
      this.bus.subscribe(subjects.trustChanged, ({ data }) => {
        // As over HTTP: a caller of no tenant reads every tenant's trust rows, a tenant's its own.
        this.broadcast((c) => (c.principal.tenantId === undefined || c.principal.tenantId === data.tenantId) && scopeGrants(c.principal.scope, SCOPE_TRUST), {
          kind: 'trust.changed',
          ...data,
        });
      }),
      this.bus.subscribe(subjects.approvalsChanged, ({ data }) => {
        // As GET /approvals: a caller of no tenant (or the admin key) reads every tenant's requests, a tenant's its own.
        this.broadcast(
          (c) => (c.principal.tenantId === undefined || c.principal.tenantId === data.tenantId) && scopeGrants(c.principal.scope, SCOPE_APPROVALS),
          { kind: 'approval.changed', ...data },
        );
      }),
      this.bus.subscribe(subjects.schedulerEvent, ({ data }) => {
        this.broadcast((c) => (c.principal.tenantId ?? '') === data.namespace && SCOPES_SCHEDULER.some((s) => scopeGrants(c.principal.scope, s)), {
          kind: 'scheduler.event',
          event: data,
        });
      }),
    ];
  }

  /** Every probe round, to every client: health is public on each listener. */
  setHealth(round: ServiceHealth[]): void {
    this.health = round;
    this.broadcast(() => true, { kind: 'health', services: round });
  }

  add(socket: WebSocket, principal: Principal): void {
    const credential = credentialOf(principal);
    let held = 0;
    for (const c of this.clients) if (credentialOf(c.principal) === credential) held++;
    if (held >= LIVE_SOCKETS_PER_CREDENTIAL) {
      socket.close(1008, `at most ${LIVE_SOCKETS_PER_CREDENTIAL} live sockets per token`);
      return;
    }
    const client: Client = { socket, principal, timer: undefined };
    this.clients.add(client);
    if (principal.exp !== undefined) {
      // setTimeout holds at most ~24.8 days; a longer-lived token is re-armed at that bound.
      const ms = Math.min(principal.exp * 1000 - Date.now(), 2 ** 31 - 1);
      client.timer = setTimeout(() => this.end(client, 'token expired'), Math.max(0, ms));
      client.timer.unref();
    }
    socket.on('close', () => this.drop(client));
    socket.on('error', () => this.drop(client));
    send(client, {
      kind: 'hello',
      sub: principal.sub ?? 'anonymous',
      scope: principal.scope,
      expiresAt: principal.exp ?? null,
      services: this.health,
    });
  }

  async stop(): Promise<void> {
    for (const c of [...this.clients]) {
      send(c, { kind: 'bye', reason: 'the dashboard edge is stopping' });
      c.socket.close(1001, 'going away');
      this.drop(c);
    }
    await Promise.all(this.subscriptions.map((s) => s.unsubscribe()));
  }

  private end(client: Client, reason: string): void {
    send(client, { kind: 'bye', reason });
    client.socket.close(CLOSE_TOKEN_ENDED, reason);
    this.drop(client);
  }

  private drop(client: Client): void {
    if (client.timer) clearTimeout(client.timer);
    this.clients.delete(client);
  }

  private broadcast(to: (c: Client) => boolean, message: LiveMessage): void {
    const text = JSON.stringify(message);
    for (const c of this.clients) if (to(c)) sendText(c, text);
  }
}

/** Whose sockets count together: a token's jti, else its subject (the admin key: `admin`). */
function credentialOf(p: Principal): string {
  return p.jti !== undefined ? `jti:${p.jti}` : `sub:${p.sub ?? 'anonymous'}`;
}

/**
 * Trace events carry the subject of any tenant's record: only tokens that read the whole chain (no
 * tenant) get them live; a tenant's token reads its own records over HTTP.
 */
function canSeeTraces(p: Principal): boolean {
  return p.tenantId === undefined && scopeGrants(p.scope, SCOPE_TRACES);
}

function send(client: Client, message: LiveMessage): void {
  sendText(client, JSON.stringify(message));
}

function sendText(client: Client, text: string): void {
  // OPEN only: a socket that is closing would throw; its close handler drops it.
  if (client.socket.readyState === 1) client.socket.send(text);
}

/** The token offered as a subprotocol (`bearer.<token>`), for browsers that cannot set headers on a socket. */
export function bearerFromProtocols(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (value === undefined) return undefined;
  for (const part of value.split(',')) {
    const p = part.trim();
    if (p.startsWith(BEARER_PROTOCOL_PREFIX) && p.length > BEARER_PROTOCOL_PREFIX.length) return p.slice(BEARER_PROTOCOL_PREFIX.length);
  }
  return undefined;
}
