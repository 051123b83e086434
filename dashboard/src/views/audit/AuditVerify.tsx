import { createSignal, Show } from 'solid-js';
import { apiOf } from '../../api';
import type { AuditVerification } from './types';

/** `GET /audit/verify`: recomputes every entry's hash and link; says where the trail breaks, if it does. */
export function AuditVerify() {
  const [busy, setBusy] = createSignal(false);
  const [result, setResult] = createSignal<{ ok: boolean; text: string } | null>(null);
  const run = async () => {
    setBusy(true);
    setResult(null);
    const r = await apiOf<AuditVerification>('token', '/audit/verify');
    setBusy(false);
    if (r.kind !== 'ok') return void setResult({ ok: false, text: `The verification could not run: ${r.message}` });
    const v = r.value;
    setResult(
      v.valid
        ? { ok: true, text: `valid: ${v.checked} entries checked, head ${v.headHash.slice(0, 16)}…` }
        : { ok: false, text: `INVALID at entry ${v.brokenAt ?? '?'}: ${v.reason ?? 'no reason given'} (${v.checked} checked)` },
    );
  };
  return (
    <p>
      <button type="button" onClick={run} disabled={busy()}>
        Verify the audit trail
      </button>{' '}
      <Show when={busy()}>
        <span role="status">verifying…</span>
      </Show>
      <Show when={result()}>
        {(r) => (
          <span class={r().ok ? 'ok' : 'bad'} role="status" data-testid="audit-verify-result">
            {r().text}
          </span>
        )}
      </Show>
    </p>
  );
}
