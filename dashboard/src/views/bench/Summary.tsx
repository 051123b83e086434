import { For, Show } from 'solid-js';
import { ms, SUMMARY_COLUMNS } from './format';
import type { BenchJob, BenchResult, LatencySummary } from './types';

/** The percentile table: one row per summary the result holds (measured, corrected, TTFT, inter-token). */
export function PercentileTable(props: { result: BenchResult; id: string }) {
  const rows = (): [string, LatencySummary][] => {
    const r = props.result;
    const out: [string, LatencySummary][] = [['measured latency', r.latency]];
    if (r.latencyCorrected) out.push(['corrected for coordinated omission', r.latencyCorrected]);
    if (r.ttft) out.push(['time to first token', r.ttft]);
    if (r.interTokenLatency) out.push(['inter-token latency', r.interTokenLatency]);
    return out;
  };
  return (
    <section class="bench-scroll" tabindex="0" aria-label="latency percentiles (scrolls sideways on a narrow screen)">
      <table id={props.id} class="bench-percentiles" data-testid="percentile-table">
        <caption>Latency percentiles (HDR histogram of the successful calls)</caption>
        <thead>
          <tr>
            <th scope="col">summary</th>
            <For each={SUMMARY_COLUMNS}>{([label]) => <th scope="col">{label}</th>}</For>
          </tr>
        </thead>
        <tbody>
          <For each={rows()}>
            {([label, s]) => (
              <tr>
                <th scope="row">{label}</th>
                <For each={SUMMARY_COLUMNS}>{([, key]) => <td>{key === 'count' ? s.count : ms(s[key])}</td>}</For>
              </tr>
            )}
          </For>
        </tbody>
      </table>
    </section>
  );
}

const counts = (o: Record<string, number> | undefined): string =>
  o && Object.keys(o).length > 0
    ? Object.entries(o)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')
    : 'none';

/** Throughput, counts, errors by kind, the machine and the settings of a finished run. */
export function RunFacts(props: { job: BenchJob; result: BenchResult }) {
  const r = () => props.result;
  const m = () => r().machine;
  return (
    <dl class="fields bench-facts">
      <dt>calls</dt>
      <dd>
        {r().succeeded} succeeded, {r().failed} failed, in {(r().durationMs / 1000).toFixed(2)} s
      </dd>
      <dt>throughput</dt>
      <dd data-testid="throughput">{r().throughputPerSecond.toFixed(1)} calls/s</dd>
      <Show when={r().outputTokensPerSecond !== undefined}>
        <dt>output tokens</dt>
        <dd>
          {r().outputTokens ?? '—'} ({r().outputTokensPerSecond!.toFixed(1)} tokens/s per call)
        </dd>
      </Show>
      <dt>errors by kind</dt>
      <dd data-testid="errors">{counts(r().errorsByKind)}</dd>
      <Show when={r().statusCodes}>
        <dt>status codes</dt>
        <dd>{counts(r().statusCodes)}</dd>
      </Show>
      <Show when={r().coordinatedOmission}>
        {(co) => (
          <>
            <dt>coordinated omission</dt>
            <dd>
              {co().method} (expected interval {ms(co().expectedIntervalMs)})
            </dd>
          </>
        )}
      </Show>
      <dt>machine</dt>
      <dd>
        {m().cpuModel}, {m().cores} cores, {(m().totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, Node {m().node}, {m().platform}, host {m().hostname}
      </dd>
      <dt>settings</dt>
      <dd>
        {props.job.settings.testRuns} measured calls, {props.job.settings.warmupRuns} warm-up, concurrency {props.job.settings.concurrency}
      </dd>
    </dl>
  );
}
