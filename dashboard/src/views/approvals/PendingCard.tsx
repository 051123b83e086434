import { createSignal, Show } from 'solid-js';
import { apiOf } from '../../api';
import { RelativeTime } from '../../time';
import { ruleLabel, type Approval } from './types';

/**
 * One held call, as it would run: server, tool, the arguments as sent and their digest, the caller,
 * the policy version and rule that held it, and when it expires; then a reason and Approve or Deny
 * (`POST /approvals/{id}/approve|deny`). The desk refuses a caller's own call and a second decision;
 * its refusal is shown as it came.
 */
export function PendingCard(props: { approval: Approval; onDecided: (said: string) => void }) {
  const a = () => props.approval;
  const [reason, setReason] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [refused, setRefused] = createSignal<string | null>(null);
  const id = () => a().id;
  const decide = async (decision: 'approve' | 'deny') => {
    setBusy(true);
    setRefused(null);
    const text = reason().trim();
    const r = await apiOf<Approval>('token', `/approvals/${encodeURIComponent(id())}/${decision}`, {
      method: 'POST',
      body: text === '' ? {} : { reason: text },
    });
    setBusy(false);
    if (r.kind !== 'ok') return void setRefused(`Not decided: ${r.message}`);
    // The card leaves the inbox with the next read: the parent says what was done.
    props.onDecided(
      r.value.status === 'approved'
        ? `Approved ${r.value.server} / ${r.value.tool} for ${r.value.callerSub}: the same call, made again by its caller, runs once.`
        : `Denied ${r.value.server} / ${r.value.tool} for ${r.value.callerSub}: this call stays refused.`,
    );
  };
  return (
    <article class="approval" data-approval={id()} aria-labelledby={`${id()}-title`}>
      <h3 id={`${id()}-title`}>
        <code>{a().server}</code> / <code>{a().tool}</code> <small>for {a().callerSub}</small>
      </h3>
      <dl class="fields">
        <dt>Caller</dt>
        <dd data-field="caller">
          {a().callerSub}
          {a().callerTenant !== null ? ` (tenant ${a().callerTenant})` : ''}
        </dd>
        <dt>Arguments, as sent</dt>
        <dd>
          <pre data-field="args">{JSON.stringify(a().args, null, 2)}</pre>
        </dd>
        <dt>Arguments digest</dt>
        <dd>
          <code data-field="digest">{a().argsDigest}</code>
        </dd>
        <dt>Held by</dt>
        <dd>
          {ruleLabel(a())}; decided by <code>approval:decide</code> or <code>{a().approvers}</code>
        </dd>
        <dt>Policy version</dt>
        <dd>
          <code data-field="policy-version">{a().policyVersion}</code>
        </dd>
        <dt>Held</dt>
        <dd>
          <RelativeTime iso={a().createdAt} />
        </dd>
        <dt>Expires</dt>
        <dd data-field="expires">
          <RelativeTime iso={a().expiresAt} />
        </dd>
        <dt>Request</dt>
        <dd>
          <code>{id()}</code>
        </dd>
      </dl>
      <form class="decide" onSubmit={(e) => e.preventDefault()}>
        <label for={`${id()}-reason`}>Reason (kept with the decision and on its record)</label>
        <input id={`${id()}-reason`} maxLength={1000} autocomplete="off" value={reason()} onInput={(e) => setReason(e.currentTarget.value)} />
        <button type="button" class="approve" disabled={busy()} onClick={() => void decide('approve')}>
          Approve
        </button>
        <button type="button" class="deny" disabled={busy()} onClick={() => void decide('deny')}>
          Deny
        </button>
      </form>
      <Show when={refused()}>
        {(text) => (
          <p class="bad" role="alert">
            {text()}
          </p>
        )}
      </Show>
    </article>
  );
}
