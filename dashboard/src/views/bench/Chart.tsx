import { onCleanup, onMount } from 'solid-js';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * One uPlot chart that follows its container's width. uPlot is imported only by the bench views,
 * which the route table loads lazily: it is not in the first view's bundle.
 * The canvas is hidden from assistive technology; the caller puts the same figures in a table
 * beside it (`describedBy`), which is the chart's text alternative.
 */
export function Chart(props: {
  label: string;
  describedBy: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  testId: string;
}) {
  let box!: HTMLDivElement;
  onMount(() => {
    const width = () => Math.max(240, Math.floor(box.clientWidth));
    const plot = new uPlot({ ...props.options, width: width(), height: 260 }, props.data, box);
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    resize.observe(box);
    onCleanup(() => {
      resize.disconnect();
      plot.destroy();
    });
  });
  return <div class="bench-chart" ref={box} role="img" aria-label={props.label} aria-describedby={props.describedBy} data-testid={props.testId} />;
}
