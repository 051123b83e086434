import type { ReceivedSpan } from './otlp-receiver.ts';

/**
 * One trace as a waterfall page (what Jaeger or Tempo would draw), from the spans an OTLP receiver
 * collected: a row per span, indented under its parent, its bar placed on the trace's time line.
 * For the screenshot in docs/OBSERVABILITY.md; no collector UI runs here.
 */

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const COLORS: Record<string, string> = { server: '#2f6fde', client: '#0f9d77', internal: '#7a7f8a', producer: '#c27c0e', consumer: '#b4439a' };

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

/** Spans in depth-first order, each with its depth; children by start time. */
function ordered(spans: readonly ReceivedSpan[]): Array<{ span: ReceivedSpan; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, ReceivedSpan[]>();
  for (const s of spans) {
    const parent = ids.has(s.parentSpanId) ? s.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: Array<{ span: ReceivedSpan; depth: number }> = [];
  const walk = (parent: string, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => (a.startNs < b.startNs ? -1 : 1))) {
      out.push({ span: s, depth });
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  return out;
}

/** `linked`: the spans of other traces whose roots link into this one (batch work), drawn below it. */
export function waterfallHtml(title: string, spans: readonly ReceivedSpan[], linked: readonly ReceivedSpan[] = []): string {
  const all = [...spans, ...linked];
  // Nanoseconds are bigints, which Math.min and Math.max do not take.
  let t0 = all[0]?.startNs ?? 0n;
  let t1 = 0n;
  for (const s of all) {
    if (s.startNs < t0) t0 = s.startNs;
    if (s.endNs > t1) t1 = s.endNs;
  }
  const total = Number(t1 - t0) || 1;
  const row = (s: ReceivedSpan, depth: number, note = '') => {
    const kind = KINDS[s.kind] ?? 'internal';
    const left = (Number(s.startNs - t0) / total) * 100;
    const width = Math.max(0.3, (Number(s.endNs - s.startNs) / total) * 100);
    const ms = (Number(s.endNs - s.startNs) / 1e6).toFixed(2);
    return (
      `<tr><td class="name" style="padding-left:${8 + depth * 16}px">${escapeHtml(s.name)}${note}<span class="kind">${kind}</span></td>` +
      `<td class="bar"><div style="left:${left}%;width:${width}%;background:${COLORS[kind] ?? '#7a7f8a'}"></div></td><td class="ms">${ms} ms</td></tr>`
    );
  };
  const rows = ordered(spans)
    .map(({ span, depth }) => row(span, depth))
    .join('\n');
  const here = spans[0]?.traceId;
  const note = (s: ReceivedSpan) =>
    s.links.some((l) => l.traceId === here)
      ? ` <span class="link">links here; its own trace ${s.traceId.slice(0, 8)}…, ${s.links.length} link${s.links.length === 1 ? '' : 's'}</span>`
      : '';
  const linkedRows = ordered(linked)
    .map(({ span, depth }) => row(span, depth, note(span)))
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>
body{font:13px system-ui,sans-serif;margin:16px;color:#1d2330}
h1{font-size:16px;margin:0 0 4px} p{margin:0 0 12px;color:#555}
table{border-collapse:collapse;width:100%} td{padding:3px 6px;border-bottom:1px solid #eceef2;white-space:nowrap}
td.name{width:44%;font-family:ui-monospace,monospace} td.ms{width:80px;text-align:right;color:#555}
td.bar{position:relative} td.bar div{position:absolute;top:5px;height:12px;border-radius:2px}
.kind{margin-left:8px;font:11px system-ui;color:#888} .link{font:11px system-ui;color:#b4439a}
tr.sep td{background:#f6f7f9;font-weight:600}
</style></head><body><h1>${escapeHtml(title)}</h1>
<p>trace ${escapeHtml(spans[0]?.traceId ?? '')} · ${spans.length} spans · ${(total / 1e6).toFixed(1)} ms</p>
<table>${rows}${linked.length > 0 ? `<tr class="sep"><td colspan="3">batch work that serves this request (root spans of their own, linked)</td></tr>${linkedRows}` : ''}</table></body></html>`;
}
