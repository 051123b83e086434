import { For, Show } from 'solid-js';
import { A } from '@solidjs/router';
import { RelativeTime } from '../../time';
import { recordHref, ruleLabel, type Approval } from './types';

const STATUS_CLASS: Record<Approval['status'], string> = { pending: 'warn', approved: 'ok', used: 'ok', denied: 'bad', expired: 'warn' };
const STATUS_TEXT: Record<Approval['status'], string> = {
  pending: 'pending',
  approved: 'approved, not yet run',
  used: 'approved and run',
  denied: 'denied',
  expired: 'expired',
};

/**
 * Requests no longer waiting, newest first: who decided what and why, and links to both signed
 * records: the decision's (module `mcp:approvals`) and the call's it let run.
 */
export function History(props: { approvals: readonly Approval[] }) {
  return (
    <table data-testid="approval-history">
      <thead>
        <tr>
          <th scope="col">Held</th>
          <th scope="col">Call</th>
          <th scope="col">Caller</th>
          <th scope="col">Rule</th>
          <th scope="col">Status</th>
          <th scope="col">Decided by</th>
          <th scope="col">Reason</th>
          <th scope="col">Decision's record</th>
          <th scope="col">Call's record</th>
        </tr>
      </thead>
      <tbody>
        <For
          each={props.approvals}
          fallback={
            <tr>
              <td colspan="9">No decided or expired request yet.</td>
            </tr>
          }
        >
          {(a) => (
            <tr data-approval={a.id} data-status={a.status}>
              <td>
                <RelativeTime iso={a.createdAt} />
              </td>
              <td>
                <code>{a.server}</code> / <code>{a.tool}</code>{' '}
                <small>
                  <code title={`arguments digest ${a.argsDigest}`}>{a.argsDigest.slice(0, 12)}…</code>
                </small>
              </td>
              <td>{a.callerSub}</td>
              <td>{ruleLabel(a)}</td>
              <td class={STATUS_CLASS[a.status]}>{STATUS_TEXT[a.status]}</td>
              <td>
                {a.decidedBy ?? '—'}
                <Show when={a.decidedAt}>
                  {(at) => (
                    <>
                      {' '}
                      <RelativeTime iso={at()} />
                    </>
                  )}
                </Show>
              </td>
              <td>{a.decisionReason ?? '—'}</td>
              <td data-field="decision-record">{a.decisionTrace !== null ? <A href={recordHref(a.decisionTrace)}>{a.decisionTrace}</A> : '—'}</td>
              <td data-field="call-record">{a.callTrace ? <A href={recordHref(a.callTrace)}>{a.callTrace}</A> : a.status === 'used' ? 'not linked' : '—'}</td>
            </tr>
          )}
        </For>
      </tbody>
    </table>
  );
}
