import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { seg, when } from './common';
import type { Anomaly } from './types';

/** Anomalies with the chain they were found in and the records that show them. */
export function AnomalyList(props: { anomalies: Anomaly[]; hideChain?: boolean }) {
  return (
    <ul class="anomalies" data-testid="anomalies">
      <For each={props.anomalies} fallback={<li>No anomaly found.</li>}>
        {(a) => (
          <li data-anomaly={a.kind}>
            <strong class="bad">{a.kind}</strong>
            {props.hideChain ? (
              ' '
            ) : (
              <>
                {' '}
                in chain <A href={`/trust/chains/${seg(a.chainId)}`}>{a.chainId}</A>:{' '}
              </>
            )}
            {a.detail}
            <br />
            <small>
              records:{' '}
              <For each={a.records}>
                {(r) => (
                  <>
                    <code>{r}</code>{' '}
                  </>
                )}
              </For>
              · since {when(a.detectedAt)}
            </small>
          </li>
        )}
      </For>
    </ul>
  );
}
