import { For } from 'solid-js';
import { A } from '@solidjs/router';
import { Loaded } from '../Loaded';
import { seg, StateBadge, TrustNav, useTrust, when } from './common';
import { AnomalyList } from './AnomalyList';
import type { Anomaly, Dispute, ScoreMethod, ScoreRow } from './types';

const READ = 'trust:read';

/** `#/trust`: every agent's advisory score, the anomalies found in call chains, and the disputes waiting for someone. */
export function TrustOverview() {
  const [scores, reloadScores] = useTrust<{ scores: ScoreRow[]; method: ScoreMethod }>(() => '/scores');
  const [anomalies, reloadAnomalies] = useTrust<{ anomalies: Anomaly[]; bounds: Record<string, number> }>(() => '/anomalies');
  const [pending, reloadPending] = useTrust<{ disputes: Dispute[] }>(() => '/disputes/pending');
  const reload = () => {
    reloadScores();
    reloadAnomalies();
    reloadPending();
  };
  return (
    <section class="trust" aria-labelledby="trust-title">
      <h1 id="trust-title">Trust</h1>
      <TrustNav />
      <p class="lede">
        Advisory scores of agents, each explained by the records that moved it; structural anomalies in agent-to-agent call chains; disputes waiting for a
        person. Open a subject for its events, appeals and evidence.{' '}
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </p>

      <h2>Agents' scores</h2>
      <Loaded result={scores()} what={`trust scores (scope ${READ})`}>
        {(v) => (
          <>
            <table class="trust-table" data-testid="scores">
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Score</th>
                  <th scope="col">Records counted</th>
                  <th scope="col">Excluded</th>
                </tr>
              </thead>
              <tbody>
                <For
                  each={v.scores}
                  fallback={
                    <tr>
                      <td colspan="4">No agent has a recorded event or contract yet.</td>
                    </tr>
                  }
                >
                  {(s) => (
                    <tr data-subject={s.subjectId}>
                      <td>
                        <A href={`/trust/subjects/${seg(s.subjectId)}`}>{s.subjectId}</A>
                      </td>
                      <td>
                        <strong>{s.score}</strong> <small>advisory</small>
                      </td>
                      <td>{s.contributions}</td>
                      <td>{s.excluded}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
            <p>
              <small>
                Method {v.method.name}: starts at {v.method.baseline}, each record moves it by a fixed weight, clamped to {v.method.range.join('..')}. Scores
                never deny access by themselves.
              </small>
            </p>
          </>
        )}
      </Loaded>

      <h2>Anomalies</h2>
      <Loaded result={anomalies()} what={`anomalies (scope ${READ})`}>
        {(v) => (
          <>
            <AnomalyList anomalies={v.anomalies} />
            <p>
              <small>
                Bounds: depth {v.bounds.maxDepth}, fan-out {v.bounds.maxFanOut}, stall after {Math.round((v.bounds.stallMs ?? 0) / 1000)} s.
              </small>
            </p>
          </>
        )}
      </Loaded>

      <h2>Disputes waiting for someone</h2>
      <Loaded result={pending()} what={`pending disputes (scope ${READ})`}>
        {(v) => (
          <table class="trust-table" data-testid="pending-disputes">
            <thead>
              <tr>
                <th scope="col">Dispute</th>
                <th scope="col">State</th>
                <th scope="col">Question</th>
                <th scope="col">Opened</th>
              </tr>
            </thead>
            <tbody>
              <For
                each={v.disputes}
                fallback={
                  <tr>
                    <td colspan="4">No dispute is pending or escalated.</td>
                  </tr>
                }
              >
                {(d) => (
                  <tr data-dispute={d.id}>
                    <td>
                      <A href={`/trust/disputes/${seg(d.id)}`}>{d.title}</A>
                    </td>
                    <td>
                      <StateBadge state={d.state} />
                    </td>
                    <td>{d.question}</td>
                    <td>{when(d.createdAt)}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        )}
      </Loaded>
    </section>
  );
}
