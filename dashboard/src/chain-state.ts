import { createSignal } from 'solid-js';
import { api } from './api';

/** The chain's last verification in this tab (the overview shows it; the chain view and the overview run it). */
export interface Verification {
  at: string;
  ok: boolean;
  text: string;
}
interface ChainVerify {
  valid: boolean;
  checked: number;
  headHash: string;
  brokenAt?: number;
  reason?: string;
}

const [lastVerification, setLastVerification] = createSignal<Verification | null>(null);
const [verifying, setVerifying] = createSignal(false);
export { lastVerification, verifying };

export async function verifyChain(): Promise<void> {
  setVerifying(true);
  const r = await api<ChainVerify>('/executions/verify', { method: 'POST', body: {} });
  setVerifying(false);
  const at = new Date().toISOString();
  if (r.kind !== 'ok') return void setLastVerification({ at, ok: false, text: `verification could not run: ${r.message}` });
  const v = r.value;
  setLastVerification(
    v.valid
      ? { at, ok: true, text: `valid: ${v.checked} records checked, head ${v.headHash.slice(0, 16)}…` }
      : { at, ok: false, text: `INVALID at record ${v.brokenAt ?? '?'}: ${v.reason ?? 'no reason given'} (${v.checked} checked)` },
  );
}
