import { RelativeTime } from '../../time';
import { createResource, createSignal, onCleanup, Show, type Resource } from 'solid-js';
import { onLive } from '../../live';
import { A, useNavigate } from '@solidjs/router';
import { apiOf, type ApiResult } from '../../api';
import { token } from '../../auth';
import type { Proof } from './types';
import './trust.css';

/**
 * Pieces every trust view shares: the sub-navigation, reads keyed on the token (a new token reads
 * again), proofs that link to the execution record they cite, and actions that say what came back.
 */

/** Live re-reads wait this long after a trust change, so a burst of writes is one read. */
const LIVE_READ_MS = 500;

/**
 * A read of the trust listener through the dashboard's proxy, again whenever the token or `path`
 * changes, and live: again (at most every half second) when the socket says the trust service wrote
 * something this token may read.
 */
export function useTrust<T>(path: () => string | null): [Resource<ApiResult<T>>, () => void] {
  const [r, { refetch }] = createResource(
    () => (path() === null ? null : { p: path()!, t: token() }),
    ({ p }) => apiOf<T>('trust', p),
  );
  let timer: number | undefined;
  onCleanup(
    onLive('trust.changed', () => {
      timer ??= window.setTimeout(() => {
        timer = undefined;
        void refetch();
      }, LIVE_READ_MS);
    }),
  );
  onCleanup(() => window.clearTimeout(timer));
  return [r, () => void refetch()];
}

/** `encodeURIComponent` for ids in a path. */
export const seg = (id: string) => encodeURIComponent(id);

export function TrustNav() {
  const [subject, setSubject] = createSignal('');
  const navigate = useNavigate();
  return (
    <nav class="trust-nav" aria-label="trust views">
      <A href="/trust" end>
        Overview
      </A>
      <A href="/trust/disputes">Disputes</A>
      <A href="/trust/contracts">Contracts</A>
      <A href="/trust/chains">Chains</A>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (subject().trim() !== '') navigate(`/trust/subjects/${seg(subject().trim())}`);
        }}
      >
        <label for="trust-subject">Subject</label>
        <input id="trust-subject" placeholder="agent, person or system id" value={subject()} onInput={(e) => setSubject(e.currentTarget.value)} />
        <button type="submit">Open</button>
      </form>
    </nav>
  );
}

/** A proof as recorded, linked where it can be followed: an execution to its record view, a URL to itself. */
export function ProofLink(props: { proof: Proof }) {
  const p = () => props.proof as Partial<{ executionId: string; auditEntryId: string; url: string; sha256: string }>;
  return (
    <Show
      when={p().executionId}
      fallback={
        <Show
          when={p().url}
          fallback={
            <span>
              audit entry <code>{p().auditEntryId}</code>
            </span>
          }
        >
          <span>
            <a href={p().url} rel="noreferrer noopener" target="_blank">
              {p().url}
            </a>{' '}
            <small title="the digest claimed for what the URL points at; the service never fetched it">sha256 {p().sha256?.slice(0, 12)}…</small>
          </span>
        </Show>
      }
    >
      {(id) => (
        <span>
          execution <ExecutionLink id={id()} />
        </span>
      )}
    </Show>
  );
}

export function ExecutionLink(props: { id: string }) {
  return (
    <A href={`/records/${props.id}`} data-execution={props.id}>
      <code>{props.id}</code>
    </A>
  );
}

/** A state as a badge: the word itself, coloured by whether someone needs to act. */
export function StateBadge(props: { state: string }) {
  const tone = () =>
    (
      ({
        pending: 'warn',
        escalated: 'warn',
        open: 'warn',
        suspended: 'warn',
        upheld: 'ok',
        resolved: 'ok',
        decided: 'ok',
        active: 'ok',
        remediated: 'ok',
        success: 'ok',
        rejected: 'bad',
        failure: 'bad',
        refused: 'bad',
        timeout: 'bad',
      }) as Record<string, string>
    )[props.state] ?? '';
  return (
    <span class={`badge ${tone()}`} data-state={props.state}>
      {props.state}
    </span>
  );
}

/** A time relative to now ("3 min ago"), exact on hover and focus. */
export const when = (iso: string | null | undefined) => <RelativeTime iso={iso} />;

/**
 * An action's last answer, said plainly: done (with what the listener said), not permitted (the
 * scope the action needs), or the listener's error message.
 */
export type Outcome = { ok: true; text: string } | { ok: false; text: string } | null;

export function describe(r: ApiResult<unknown>, done: string, scope: string): Outcome {
  if (r.kind === 'ok') return { ok: true, text: done };
  if (r.kind === 'not-permitted') return { ok: false, text: `Not permitted: this needs the scope ${scope} (${r.message})` };
  return { ok: false, text: r.message };
}

export function OutcomeLine(props: { outcome: Outcome }) {
  return (
    <Show when={props.outcome}>
      {(o) => (
        <p class={o().ok ? 'ok' : 'bad'} role="status">
          {o().text}
        </p>
      )}
    </Show>
  );
}
