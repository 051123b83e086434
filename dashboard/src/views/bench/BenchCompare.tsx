import { createResource, createSignal, For, Match, Show, Switch } from 'solid-js';
import { A, useSearchParams } from '@solidjs/router';
import { apiOf, type ApiResult } from '../../api';
import { token } from '../../auth';
import { Loaded } from '../Loaded';
import { Unknown } from '../Unknown';
import { ms } from './format';
import type { BenchJob, Comparison, History } from './types';
import './bench.css';

const label = (r: BenchJob) => `${r.name ?? '(unnamed)'} · ${r.jobId.slice(0, 14)}… · ${r.status} · ${r.createdAt.slice(0, 19).replace('T', ' ')}`;
const p = (x: number) => (x < 0.0001 ? x.toExponential(2) : x.toFixed(4));

/** `#/bench/compare?baseline=…&candidate=…`: two runs chosen from the history, and `GET /compare`'s answer. */
export function BenchCompare() {
  const [search, setSearch] = useSearchParams<{ baseline?: string; candidate?: string }>();
  const [runs] = createResource(token, () => apiOf<History>('bench', '/history?limit=100'));
  const pair = () => (search.baseline && search.candidate ? { b: search.baseline, c: search.candidate, t: token() } : null);
  const [compared] = createResource(pair, ({ b, c }) => apiOf<Comparison>('bench', `/compare?${new URLSearchParams({ baseline: b, candidate: c })}`));
  const [baseline, setBaseline] = createSignal<string | undefined>();
  const [candidate, setCandidate] = createSignal<string | undefined>();
  const chosen = (which: 'baseline' | 'candidate') => (which === 'baseline' ? (baseline() ?? search.baseline) : (candidate() ?? search.candidate)) ?? '';
  const submit = (e: Event) => {
    e.preventDefault();
    setSearch({ baseline: chosen('baseline') || undefined, candidate: chosen('candidate') || undefined });
  };

  return (
    <section class="bench-page" aria-labelledby="compare-title">
      <p>
        <A href="/bench">← all runs</A>
      </p>
      <h1 id="compare-title">Compare two benchmark runs</h1>
      <p>
        Choose the baseline (before) and the candidate (after). The suite tests their measured latencies with Welch's t-test and the Mann-Whitney U test; a
        change counts when both agree and the mean moved by at least 5%.
      </p>
      <Loaded result={runs()} what="the benchmark runs (scope bench:read)">
        {(h) => (
          <form class="bench-compare-form" onSubmit={submit}>
            <For each={['baseline', 'candidate'] as const}>
              {(which) => (
                <label>
                  {which === 'baseline' ? 'Baseline' : 'Candidate'}
                  <select
                    name={which}
                    required
                    value={chosen(which)}
                    onChange={(e) => (which === 'baseline' ? setBaseline : setCandidate)(e.currentTarget.value)}
                  >
                    <option value="">choose a run</option>
                    <Show when={chosen(which) && !h.runs.some((r) => r.jobId === chosen(which))}>
                      <option value={chosen(which)}>{chosen(which)}</option>
                    </Show>
                    <For each={h.runs}>{(r) => <option value={r.jobId}>{label(r)}</option>}</For>
                  </select>
                </label>
              )}
            </For>
            <button type="submit">Compare</button>
          </form>
        )}
      </Loaded>
      <Show when={pair()}>
        <Outcome result={compared()} />
      </Show>
    </section>
  );
}

function Outcome(props: { result: ApiResult<Comparison> | undefined }) {
  const r = () => props.result;
  const failure = () => {
    const x = r();
    return x && x.kind !== 'ok' ? x : undefined;
  };
  return (
    <Switch fallback={<p role="status">Comparing…</p>}>
      <Match when={r()?.kind === 'ok' && (r() as { value: Comparison }).value}>{(c) => <Verdict c={c()} />}</Match>
      <Match when={failure()?.kind === 'error' && (failure() as { status: number }).status === 409}>
        <p class="warn" role="alert" data-testid="compare-error">
          Not finished: a run must have succeeded (with at least two successful calls) to be compared. {failure()!.message}
        </p>
      </Match>
      <Match when={failure()?.kind === 'error' && (failure() as { status: number }).status === 404}>
        <p class="bad" role="alert" data-testid="compare-error">
          No such run: one of the two is unknown to this token's tenant. {failure()!.message}
        </p>
      </Match>
      <Match when={failure()?.kind === 'not-permitted'}>
        <p class="not-permitted">Not permitted: this token cannot read benchmark runs (scope bench:read). ({failure()!.message})</p>
      </Match>
      <Match when={failure()?.kind === 'error' && (failure() as { status: number }).status !== 503}>
        <p class="bad" role="alert">
          {failure()!.message}
        </p>
      </Match>
      <Match when={failure()}>
        <p>
          Comparison: <Unknown reason={failure()!.message} />
        </p>
      </Match>
    </Switch>
  );
}

function Verdict(props: { c: Comparison }) {
  const c = () => props.c;
  const tone = () => (c().verdict === 'regression' ? 'bad' : c().verdict === 'improvement' ? 'ok' : '');
  return (
    <>
      <p class={`bench-verdict ${tone()}`} data-testid="compare-verdict">
        {c().verdict}
      </p>
      <p>
        Mean {ms(c().baseline.meanMs)} → {ms(c().candidate.meanMs)}: {c().deltaMeanMs >= 0 ? '+' : ''}
        {ms(c().deltaMeanMs)} ({c().deltaPercent >= 0 ? '+' : ''}
        {c().deltaPercent.toFixed(1)}%). {c().significant ? 'Significant' : 'Not significant'} at α = {c().alpha} with a smallest change of{' '}
        {c().minimumDeltaPercent}%.
      </p>
      <table class="bench-compare" data-testid="compare-table">
        <caption>The two samples and the tests</caption>
        <thead>
          <tr>
            <th scope="col">
              <span class="visually-hidden">figure</span>
            </th>
            <th scope="col">baseline</th>
            <th scope="col">candidate</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">run</th>
            <td>
              <A href={`/bench/runs/${c().baseline.jobId}`}>{c().baseline.name ?? c().baseline.jobId}</A>
            </td>
            <td>
              <A href={`/bench/runs/${c().candidate.jobId}`}>{c().candidate.name ?? c().candidate.jobId}</A>
            </td>
          </tr>
          <tr>
            <th scope="row">calls (n)</th>
            <td>{c().baseline.n}</td>
            <td>{c().candidate.n}</td>
          </tr>
          <tr>
            <th scope="row">mean</th>
            <td>{ms(c().baseline.meanMs)}</td>
            <td>{ms(c().candidate.meanMs)}</td>
          </tr>
          <tr>
            <th scope="row">stddev</th>
            <td>{ms(c().baseline.stddevMs)}</td>
            <td>{ms(c().candidate.stddevMs)}</td>
          </tr>
        </tbody>
      </table>
      <dl class="fields">
        <dt>Welch's t-test</dt>
        <dd>
          t = {c().welch.t.toFixed(3)}, df = {c().welch.df.toFixed(1)}, p = <span data-testid="welch-p">{p(c().welch.pValue)}</span>
        </dd>
        <dt>Mann-Whitney U</dt>
        <dd>
          U = {c().mannWhitney.u}, p = {p(c().mannWhitney.pValue)}, P(candidate slower) = {c().mannWhitney.probabilityOfSuperiority.toFixed(3)}
        </dd>
        <dt>effect size</dt>
        <dd>
          Cohen's d = {c().effectSize.cohensD.toFixed(3)} ({c().effectSize.magnitude})
        </dd>
        <dt>significance level</dt>
        <dd>α = {c().alpha}</dd>
      </dl>
    </>
  );
}
