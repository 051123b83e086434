import { createEffect, onCleanup, onMount } from 'solid-js';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const AXIS = { stroke: '#1b1f24', grid: { stroke: '#e6e9ee' }, ticks: { stroke: '#dde2e8' }, font: '11px system-ui, sans-serif' };

export interface TrendLine {
  label: string;
  stroke: string;
  dash?: number[];
  values: (number | null)[];
}

/**
 * A small uPlot chart of per-minute points (x: minute starts in Unix seconds). It is redrawn in
 * place when its data changes, so a live append moves the latest point without a new chart. The
 * canvas is hidden from assistive technology; the figure's text (latest minute and the hour) says
 * the same.
 */
export function TrendChart(props: { x: number[]; lines: TrendLine[]; label: string; testId: string }) {
  let box!: HTMLDivElement;
  onMount(() => {
    const width = () => Math.max(200, Math.floor(box.clientWidth));
    const plot = new uPlot(
      {
        width: width(),
        height: 120,
        // The figures under the chart are its legend (colour, dash, label and value): uPlot's is off.
        legend: { show: false },
        cursor: { show: true, drag: { x: false, y: false } },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.15] } },
        axes: [
          { ...AXIS, size: 28 },
          { ...AXIS, size: 40 },
        ],
        series: [
          {},
          ...props.lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 2, ...(l.dash ? { dash: l.dash } : {}), points: { show: true, size: 4 } })),
        ],
      },
      [props.x, ...props.lines.map((l) => l.values)],
      box,
    );
    createEffect(() => plot.setData([props.x, ...props.lines.map((l) => l.values)]));
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 120 }));
    resize.observe(box);
    onCleanup(() => {
      resize.disconnect();
      plot.destroy();
    });
  });
  return <div class="trend-chart" ref={box} role="img" aria-label={props.label} data-testid={props.testId} />;
}
