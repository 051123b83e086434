import { subjects, type Bus, type Subscription } from '../../bus/index.ts';
import type { ServiceName } from '../../config/index.ts';
import { backgroundSpan, type MetricsRegistry } from '../../observability/index.ts';
import { WATCHED, type LocateListener } from './health.ts';
import { counterIncrease, MINUTE_MS, MinuteBuckets } from './minute-buckets.ts';
import { sumSamples } from './prometheus-text.ts';

/**
 * The overview's trends of the last hour, kept by the dashboard service from what it can measure
 * (docs/DASHBOARD.md, "Trends"): the chain's appends from the bus, decisions from the audit trail,
 * 4xx/5xx answers and queue depth from the listeners' `/metrics`, the audit backlog from this
 * process's audit sink. In memory: a restarted dashboard starts with gaps (decisions excepted: the
 * audit trail is read back for the hour).
 */
export const SERIES = ['appends', 'allow', 'deny', 'http4xx', 'http5xx', 'queueDepth', 'auditBacklog'] as const;
export type SeriesName = (typeof SERIES)[number];

/** Between samples of the listeners' counters and gauges; a minute gets about six. */
export const SAMPLE_MS = 10_000;
const SCRAPE_TIMEOUT_MS = 2_000;

export interface TrendSources {
  bus: Bus;
  locate: LocateListener;
  /** This process's registry: the dashboard listener's own answers are read from it, not over HTTP. */
  metrics: MetricsRegistry;
  /** Entries this process has accepted and not yet committed to the audit chain; undefined: unknown. */
  auditBacklog: () => number | undefined;
}

export class TrendRecorder {
  readonly #buckets = Object.fromEntries(SERIES.map((s) => [s, new MinuteBuckets()])) as Record<SeriesName, MinuteBuckets>;
  readonly #counters = new Map<string, number>();
  readonly #s: TrendSources;
  #subscription: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** The highest chain seq counted, so a client adding live appends to a read does not count one twice. */
  #lastSeq = 0;

  constructor(sources: TrendSources) {
    this.#s = sources;
  }

  start(): void {
    this.#buckets.appends.touch();
    this.#subscription = this.#s.bus.subscribe(subjects.executionsAppended, ({ data }) => {
      this.#buckets.appends.add(1);
      this.#lastSeq = Math.max(this.#lastSeq, data.seq);
    });
    void this.#loop(true);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#subscription?.unsubscribe();
  }

  points(name: SeriesName): (number | null)[] {
    return this.#buckets[name].points();
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  async #loop(first: boolean): Promise<void> {
    // The hour of decisions is read back once; then the last two minutes each round (entries
    // land in the trail after a group commit, a little after their decision's minute).
    // A background turn (issue 36, item 9): its bus reads (suite.audit.list, 120 on the first
    // round) and scrapes are sampled by SUITE_TRACE_BACKGROUND_RATIO (default 0), not a trace each.
    await backgroundSpan('dashboard.trends', () => Promise.all([this.#sample(), this.#readDecisions(first ? 60 : 2)]));
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#loop(false), SAMPLE_MS);
    this.#timer.unref();
  }

  async #sample(): Promise<void> {
    this.#buckets.appends.touch();
    const backlog = this.#s.auditBacklog();
    if (backlog !== undefined) this.#buckets.auditBacklog.peak(backlog);
    const texts = await Promise.all(WATCHED.map(async (service) => [service, await this.#scrape(service)] as const));
    // One metric of our own registry, not all of it: collecting it all would run every gauge's collect (queries).
    texts.push(['dashboard', await this.#s.metrics.registry.getSingleMetricAsString('http_requests_total').catch(() => undefined)]);
    let answered = false;
    let c4 = 0;
    let c5 = 0;
    for (const [service, text] of texts) {
      if (text === undefined) continue;
      answered = true;
      // Only the series of the listener asked: in one process every listener serves the same registry.
      const mine = (cls: string) => (l: Record<string, string>) => l.service === service && (l.status ?? '').startsWith(cls);
      c4 += this.#increase(`${service}:4`, sumSamples(text, 'http_requests_total', mine('4')) ?? 0);
      c5 += this.#increase(`${service}:5`, sumSamples(text, 'http_requests_total', mine('5')) ?? 0);
      if (service === 'scheduler') {
        const waiting = sumSamples(text, 'scheduler_queue_depth', (l) => l.priority !== 'running');
        if (waiting !== undefined) this.#buckets.queueDepth.peak(waiting);
      }
    }
    if (!answered) return;
    this.#buckets.http4xx.add(c4);
    this.#buckets.http5xx.add(c5);
  }

  /** A counter's increase since this listener's last scrape; the first scrape is its baseline. */
  #increase(key: string, now: number): number {
    const n = counterIncrease(this.#counters.get(key), now);
    this.#counters.set(key, now);
    return n;
  }

  async #scrape(service: ServiceName): Promise<string | undefined> {
    const base = this.#s.locate(service);
    if (base === undefined) return undefined;
    try {
      const r = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
      return r.ok ? await r.text() : undefined;
    } catch {
      return undefined;
    }
  }

  async #readDecisions(minutes: number): Promise<void> {
    const now = this.#buckets.allow.minuteOf();
    for (let m = now - minutes + 1; m <= now && !this.#stopped; m++) {
      const from = new Date(m * MINUTE_MS).toISOString();
      const to = new Date((m + 1) * MINUTE_MS - 1).toISOString();
      for (const result of ['allow', 'deny'] as const) {
        const r = await this.#s.bus.request(subjects.auditList, { limit: 1, offset: 0, result, from, to });
        // Unanswered (no audit service on the bus): the minute stays a gap, not a 0.
        if (r.ok) this.#buckets[result].set(r.value.total, m);
      }
    }
  }
}
