import { createResource, For, Match, Switch } from 'solid-js';
import { apiOf, type ApiResult } from '../../api';
import { Unknown } from '../Unknown';
import { ms } from './format';
import type { LatencySummary, Machine } from './types';

interface CoreRun {
  runId: string;
  machine: Machine;
  createdAt: string;
  result: { settings: { iterations: number; chainLength: number }; operations: Record<string, { summary: LatencySummary; opsPerSecond: number }> };
}
interface CoreRegression {
  verdict: string;
  latest: string;
  previous: string;
  operations: Record<string, { deltaPercent: number; verdict: string }>;
}

const notFound = (r: ApiResult<unknown> | undefined) => r?.kind === 'error' && r.status === 404;

/** The suite's own core operations (`GET /bench/core`, `/bench/core/regression`; both public). */
export function CorePanel() {
  const [latest] = createResource(() => apiOf<CoreRun>('bench', '/bench/core'));
  const [regression] = createResource(() => apiOf<CoreRegression>('bench', '/bench/core/regression'));
  const delta = (op: string) => {
    const r = regression();
    return r?.kind === 'ok' ? r.value.operations[op] : undefined;
  };
  return (
    <section class="bench-core" aria-labelledby="core-title">
      <h2 id="core-title">Core benchmark</h2>
      <Switch fallback={<p role="status">Loading the core benchmark…</p>}>
        <Match when={notFound(latest())}>
          <p>
            No core run yet (<code>POST /bench/core</code> with bench:run starts one).
          </p>
        </Match>
        <Match when={latest()?.kind === 'ok' && (latest() as { value: CoreRun }).value}>
          {(run) => (
            <>
              <p>
                Latest run {run().runId} at {run().createdAt} on {run().machine.cpuModel} ({run().machine.cores} cores).{' '}
                <Switch>
                  <Match when={regression()?.kind === 'ok'}>
                    Against the previous run on this machine:{' '}
                    <strong data-testid="core-verdict">{(regression() as { value: CoreRegression }).value.verdict}</strong>.
                  </Match>
                  <Match when={notFound(regression())}>No earlier run on this machine to compare with.</Match>
                </Switch>
              </p>
              <table class="bench-core-ops">
                <thead>
                  <tr>
                    <th scope="col">operation</th>
                    <th scope="col">p50</th>
                    <th scope="col">p99</th>
                    <th scope="col">ops/s</th>
                    <th scope="col">change</th>
                  </tr>
                </thead>
                <tbody>
                  <For each={Object.entries(run().result.operations)}>
                    {([op, o]) => (
                      <tr>
                        <th scope="row">{op}</th>
                        <td>{ms(o.summary.p50Ms)}</td>
                        <td>{ms(o.summary.p99Ms)}</td>
                        <td>{Math.round(o.opsPerSecond)}</td>
                        <td>{delta(op) ? `${delta(op)!.verdict} (${delta(op)!.deltaPercent.toFixed(1)}%)` : '—'}</td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </>
          )}
        </Match>
        <Match when={latest()?.kind === 'error' || latest()?.kind === 'unreachable'}>
          <p>
            Core benchmark: <Unknown reason={(latest() as { message: string }).message} />
          </p>
        </Match>
      </Switch>
    </section>
  );
}
