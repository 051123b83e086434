import { RelativeTime } from '../../time';
import { createResource, createSignal, Match, onCleanup, Show, Switch } from 'solid-js';
import { A, useParams } from '@solidjs/router';
import { apiOf } from '../../api';
import { token } from '../../auth';
import { connection, onLive } from '../../live';
import { Unknown } from '../Unknown';
import { Loaded } from '../Loaded';
import { LatencyCharts } from './Charts';
import { PercentileTable, RunFacts } from './Summary';
import type { BenchJob } from './types';
import './bench.css';

/**
 * One benchmark job (`#/bench/runs/<jobId>`): its state and progress while it runs, following the
 * socket's `bench.progress` without reload, then its result (loaded again when the job ends).
 */
export function BenchRun() {
  const params = useParams<{ jobId: string }>();
  const key = () => ({ id: params.jobId, t: token() });
  const [job, { refetch }] = createResource(key, ({ id }) => apiOf<BenchJob>('bench', `/run/${encodeURIComponent(id)}`));
  const [live, setLive] = createSignal<{ status: string; done: number; total: number } | null>(null);
  onCleanup(
    onLive('bench.progress', (p) => {
      if (p.jobId !== params.jobId) return;
      setLive({ status: p.status, done: p.done, total: p.total });
      // The final result is not on the socket: read it once the job has ended.
      if (p.status === 'succeeded' || p.status === 'failed') void refetch();
    }),
  );
  return (
    <section class="bench-page" aria-labelledby="run-title">
      <p>
        <A href="/bench">← all runs</A>
      </p>
      <h1 id="run-title">
        Benchmark run <small class="bench-id">{params.jobId}</small>
      </h1>
      <Loaded result={job()} what="this benchmark run (scope bench:read)">
        {(j) => <RunBody job={j} live={live()} />}
      </Loaded>
    </section>
  );
}

function RunBody(props: { job: BenchJob; live: { status: string; done: number; total: number } | null }) {
  const j = () => props.job;
  // The socket is newer than the read while the job runs; the read is final once it has ended.
  const ended = () => j().status === 'succeeded' || j().status === 'failed';
  const status = () => (ended() || !props.live ? j().status : props.live.status);
  const progress = () => (ended() || !props.live ? j().progress : props.live);
  return (
    <>
      <dl class="fields">
        <dt>name</dt>
        <dd>{j().name ?? '(unnamed)'}</dd>
        <dt>provider</dt>
        <dd>
          {j().provider}
          {j().model ? ` (${j().model})` : ''}
        </dd>
        <dt>target</dt>
        <dd>{j().target ?? '—'}</dd>
        <dt>state</dt>
        <dd data-testid="run-status" class={status() === 'failed' ? 'bad' : status() === 'succeeded' ? 'ok' : ''}>
          {status()}
        </dd>
        <dt>created</dt>
        <dd>
          <RelativeTime iso={j().createdAt} />
          {j().finishedAt ? (
            <>
              , finished <RelativeTime iso={j().finishedAt} />
            </>
          ) : (
            ''
          )}
        </dd>
      </dl>
      <Switch>
        <Match when={!ended()}>
          <p>
            <label for="run-progress">Progress (warm-up calls included): </label>
            <progress id="run-progress" data-testid="run-progress" max={Math.max(1, progress().total)} value={progress().done} />{' '}
            <span role="status" aria-live="polite">
              {progress().done} of {progress().total} calls
            </span>
            {/* Without the socket the figure above is only as new as the page's read: say so. */}
            <Show when={connection().state !== 'open'}>
              {' '}
              now: <Unknown reason={`progress is not followed: ${connection().reason}`} />
            </Show>
          </p>
          <p>The result appears here when the run ends; there is no need to reload.</p>
        </Match>
        <Match when={j().status === 'failed'}>
          <p class="bad" role="alert">
            The run failed: {j().error?.code}: {j().error?.message}
          </p>
        </Match>
        <Match when={j().result}>
          {(r) => (
            <>
              <PercentileTable result={r()} id="run-percentiles" />
              <Show when={(r().samplesMs?.length ?? 0) > 0} fallback={<p>No successful call: nothing to chart.</p>}>
                <LatencyCharts samplesMs={r().samplesMs!} tableId="run-percentiles" />
              </Show>
              <RunFacts job={j()} result={r()} />
              <p>
                <A href={`/bench/compare?baseline=${encodeURIComponent(j().jobId)}`}>Compare this run with another</A>
              </p>
            </>
          )}
        </Match>
      </Switch>
    </>
  );
}
