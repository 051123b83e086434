import { createResource, Show } from 'solid-js';
import { api } from '../api';
import { token } from '../auth';
import { publishedKey } from '../published-key';
import { verifyReceiptInBrowser, type ReceiptResult } from '../receipt';

/**
 * The record's receipt, verified in this browser (dashboard/src/receipt.ts) with the published trace
 * key and log vkey only: that the record is leaf `seq - 1` of the log under a checkpoint the log signed.
 */
export function RecordReceipt(props: { id: string }) {
  const [result] = createResource(
    () => ({ id: props.id, t: token() }),
    async ({ id }): Promise<ReceiptResult | { pending: string }> => {
      let receipt = await api<Parameters<typeof verifyReceiptInBrowser>[0]>(`/executions/${encodeURIComponent(id)}/receipt`);
      // 503: no checkpoint covers the record yet; one follows within a second of its commit.
      for (let tries = 0; receipt.kind === 'error' && receipt.status === 503 && tries < 5; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        receipt = await api(`/executions/${encodeURIComponent(id)}/receipt`);
      }
      if (receipt.kind !== 'ok') return { pending: (receipt as { message?: string }).message ?? 'no receipt' };
      const vkey = await fetch('/executions/log/vkey');
      if (!vkey.ok) return { pending: `GET /executions/log/vkey answered ${vkey.status}` };
      return verifyReceiptInBrowser(receipt.value, await vkey.text(), publishedKey);
    },
  );
  const text = (r: ReceiptResult) =>
    r.ok
      ? `Verified in this browser: leaf ${r.leafIndex} of the log ${r.origin} at size ${r.treeSize}, checkpoint signed by the log` +
        (r.cosignatures > 0 ? `; ${r.cosignatures} witness cosignature(s) attached, not checked here (suite verify --quorum checks them)` : '')
      : `NOT verified: ${r.reason}`;
  return (
    <>
      <h2>Receipt</h2>
      <Show when={result()} fallback={<p>Loading the receipt…</p>}>
        {(r) =>
          'pending' in r() ? (
            <p data-receipt="unavailable">No receipt yet: {(r() as { pending: string }).pending}</p>
          ) : (
            <p data-receipt={(r() as ReceiptResult).ok ? 'verified' : 'failed'} class={(r() as ReceiptResult).ok ? 'ok' : 'bad'}>
              {text(r() as ReceiptResult)}
            </p>
          )
        }
      </Show>
    </>
  );
}
