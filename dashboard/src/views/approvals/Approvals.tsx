import { createSignal, For, onCleanup } from 'solid-js';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { onLive } from '../../live';
import { createRead, throttled } from '../../reading';
import { Loaded } from '../Loaded';
import { Served } from '../Served';
import type { AuditPage } from '../audit/types';
import { History } from './History';
import { PendingCard } from './PendingCard';
import { isPolicyRefusal, Refusals } from './Refusals';
import { Rules } from './Rules';
import { APPROVAL_READ_SCOPE, type Approval, type PolicyView } from './types';
import './approvals.css';

/** How many requests and audit denials one read shows. */
const PAGE = 100;

/**
 * `#/approvals`: the MCP gateway's calls held for a person (issue 33). The inbox shows each call as it
 * would run and decides it; it follows the socket's `approval.changed`, so a held call appears and a
 * decision shows without a reload. Below: the history with both signed records, the calls the
 * policy refused (audit trail), and the policy's rules with their hit counts (`GET /mcp/policy`, shown
 * only where the suite serves it).
 */
export function Approvals() {
  const [changes, setChanges] = createSignal(0);
  const changed = throttled(() => setChanges((n) => n + 1), 300);
  onCleanup(onLive('approval.changed', changed));
  const tick = { tick: changes, everyMs: 15_000 };
  const [pending, reloadPending] = createRead(token, () => apiOf<{ approvals: Approval[] }>('token', `/approvals?status=pending&limit=${PAGE}`), tick);
  const [all, reloadAll] = createRead(token, () => apiOf<{ approvals: Approval[] }>('token', `/approvals?limit=${PAGE}`), tick);
  const [denials] = createRead(token, () => apiOf<AuditPage>('token', `/audit?result=deny&limit=${PAGE}`), tick);
  const [policy] = createRead(token, () => apiOf<PolicyView>('token', '/mcp/policy'), tick);
  const [said, setSaid] = createSignal('');
  const decided = (text: string) => {
    setSaid(text);
    reloadPending();
    reloadAll();
  };
  const what = `held gateway calls (scope ${APPROVAL_READ_SCOPE})`;
  return (
    <section class="approvals" aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approvals</h1>
      <p>
        Calls through the MCP gateway that a rule of its policy file holds for a person (docs/MCP.md, "Approvals"). Each is shown exactly as it would run; once
        approved, the same call made again by its caller runs once. Deciding needs <code>approval:decide</code> or the rule's approvers' scope, and nobody
        decides their own call.
      </p>
      <p role="status" class="ok" data-testid="decided">
        {said()}
      </p>
      <section aria-labelledby="inbox-title">
        <h2 id="inbox-title">Waiting for a decision</h2>
        <Loaded result={pending()} what={what}>
          {(v) => (
            <div data-testid="approval-inbox">
              <For each={v.approvals} fallback={<p>No call is waiting for a decision.</p>}>
                {(a) => <PendingCard approval={a} onDecided={decided} />}
              </For>
            </div>
          )}
        </Loaded>
      </section>
      <section aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <Loaded result={all()} what={what}>
          {(v) => <History approvals={v.approvals.filter((a) => a.status !== 'pending')} />}
        </Loaded>
      </section>
      <section aria-labelledby="refusals-title">
        <h2 id="refusals-title">Refused or held by a rule</h2>
        <Loaded result={denials()} what="the audit trail (scope audit:read)">
          {(v) => <Refusals entries={v.entries.filter(isPolicyRefusal)} />}
        </Loaded>
      </section>
      <Served result={policy()} id="rules-title" title="Rules and their hits" what="the gateway's policy (scope approval:read)">
        {(v) => <Rules policy={v} />}
      </Served>
    </section>
  );
}
