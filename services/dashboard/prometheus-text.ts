/**
 * The sum of one metric's samples in a Prometheus text exposition, over the samples whose labels
 * `keep` accepts; undefined when the metric is absent. Only sample lines are read (`name{labels}
 * value`): the trends need two counters and a gauge, so this small reader stands in for a parser
 * library (parse-prometheus-text-format is not among the installed packages).
 */
export function sumSamples(text: string, name: string, keep: (labels: Record<string, string>) => boolean = () => true): number | undefined {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (m === null || m[1] !== name) continue;
    const value = Number(m[3]);
    if (!Number.isFinite(value)) continue;
    if (!keep(labelsOf(m[2] ?? ''))) continue;
    sum = (sum ?? 0) + value;
  }
  return sum;
}

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const m of text.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}
