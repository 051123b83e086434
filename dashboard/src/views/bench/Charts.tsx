import { For } from 'solid-js';
import uPlot from 'uplot';
import { Chart } from './Chart';
import { bucketCount, histogram, ms, percentileCurve } from './format';

const AXIS = { stroke: '#1b1f24', grid: { stroke: '#dde2e8' }, ticks: { stroke: '#dde2e8' } };

/** The percentile a point of the log x axis stands for: 1 / (1 - q), so 10 is p90, 100 p99, 1000 p99.9. */
const percentileOf = (v: number): string => {
  const p = 100 * (1 - 1 / v);
  return p <= 0 ? 'p0' : `p${Number(p.toPrecision(4))}`;
};

/**
 * The latency percentile curve (log scale of 1 / (1 - q), so the tail is as wide as the body) and
 * the latency histogram, both from the run's measured samples. The percentile table above is the
 * curve's text alternative; the histogram has its bucket table beside it.
 */
export function LatencyCharts(props: { samplesMs: number[]; tableId: string }) {
  const curve = percentileCurve(props.samplesMs);
  const n = curve.latencyMs.length;
  const x = curve.latencyMs.map((_, i) => 1 / (1 - i / n));
  const buckets = histogram(props.samplesMs, bucketCount(n));
  const width = buckets.length > 0 ? buckets[0]!.toMs - buckets[0]!.fromMs : 1;
  return (
    <div class="bench-charts">
      <figure>
        <figcaption>Latency by percentile ({n} measured calls)</figcaption>
        <Chart
          testId="chart-percentiles"
          label={`Latency percentile curve of ${n} calls; the percentile table above holds the same figures`}
          describedBy={props.tableId}
          data={[x, curve.latencyMs]}
          options={{
            scales: { x: { time: false, distr: 3, range: () => [1, Math.max(2, n)] }, y: { range: (_u, _min, max) => [0, max * 1.05] } },
            axes: [
              // Ticks at p0, p50, p90, p99, p99.9 … as far as the samples reach.
              {
                ...AXIS,
                label: 'percentile',
                splits: () => [1, 2, 10, 100, 1000, 10000].filter((v) => v <= Math.max(2, n)),
                // uPlot's log axis labels powers of ten only by default; every split here is a named percentile.
                filter: (_u, splits) => splits,
                values: (_u, ticks) => ticks.map((v) => (v == null ? '' : percentileOf(v))),
              },
              { ...AXIS, label: 'latency (ms)', size: 60 },
            ],
            series: [
              { label: 'percentile', value: (_u, v) => (v == null ? '' : percentileOf(v)) },
              { label: 'latency', stroke: '#1f5fbf', width: 2, value: (_u, v) => (v == null ? '' : ms(v)) },
            ],
            legend: { show: true },
          }}
        />
      </figure>
      <figure>
        <figcaption>Latency histogram ({buckets.length} equal ranges)</figcaption>
        <Chart
          testId="chart-histogram"
          label={`Latency histogram of ${n} calls in ${buckets.length} ranges; the table beside it holds the counts`}
          describedBy={`${props.tableId}-histogram`}
          data={[buckets.map((b) => b.fromMs + width / 2), buckets.map((b) => b.count)]}
          options={{
            scales: {
              x: { time: false, range: () => [buckets[0]?.fromMs ?? 0, buckets.at(-1)?.toMs ?? 1] },
              y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] },
            },
            axes: [
              { ...AXIS, label: 'latency (ms)' },
              { ...AXIS, label: 'calls', size: 50 },
            ],
            series: [
              { label: 'latency', value: (_u, v) => (v == null ? '' : ms(v)) },
              {
                label: 'calls',
                stroke: '#1f5fbf',
                fill: 'rgba(31,95,191,0.35)',
                paths: uPlot.paths.bars!({ size: [0.95, Infinity], align: 0 }),
                points: { show: false },
              },
            ],
          }}
        />
        <table id={`${props.tableId}-histogram`} class="bench-buckets">
          <caption>Histogram counts</caption>
          <thead>
            <tr>
              <th scope="col">latency from</th>
              <th scope="col">to</th>
              <th scope="col">calls</th>
            </tr>
          </thead>
          <tbody>
            <For each={buckets}>
              {(b) => (
                <tr>
                  <td>{ms(b.fromMs)}</td>
                  <td>{ms(b.toMs)}</td>
                  <td>{b.count}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </figure>
    </div>
  );
}
