import { createSignal, Show } from 'solid-js';
import { api, type ApiResult } from '../api';

interface Replay {
  inputMatches: boolean | null;
  outputMatches: boolean | null;
  candidateInputHash: string | null;
  candidateOutputHash: string | null;
  conclusion: string;
}

/**
 * Replay: does this content match what the record attests? The edge hashes the candidate
 * (`POST /executions/{id}/replay`); the candidate is never stored.
 */
export function RecordReplay(props: { id: string }) {
  const [input, setInput] = createSignal('');
  const [output, setOutput] = createSignal('');
  const [result, setResult] = createSignal<ApiResult<Replay> | { kind: 'bad-json'; message: string } | null>(null);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    try {
      if (input().trim() !== '') body.input = JSON.parse(input());
      if (output().trim() !== '') body.output = JSON.parse(output());
    } catch (err) {
      setResult({ kind: 'bad-json', message: `not JSON: ${String(err)}` });
      return;
    }
    setResult(await api<Replay>(`/executions/${encodeURIComponent(props.id)}/replay`, { method: 'POST', body }));
  };
  const match = (m: boolean | null) => (m === null ? 'not compared' : m ? 'matches' : 'does not match');
  return (
    <section aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      <p>Paste the content an agent claims it used or produced (JSON); it is compared with the record's hashes, never stored.</p>
      <form onSubmit={submit}>
        <label for="replay-input">Candidate input</label>
        <textarea id="replay-input" rows="3" value={input()} onInput={(e) => setInput(e.currentTarget.value)} />
        <label for="replay-output">Candidate output</label>
        <textarea id="replay-output" rows="3" value={output()} onInput={(e) => setOutput(e.currentTarget.value)} />
        <button type="submit">Compare</button>
      </form>
      {/* keyed: each new answer renders afresh (the body reads it once). */}
      <Show when={result()} keyed>
        {(v) => {
          if (v.kind !== 'ok')
            return (
              <p class="bad" role="alert" data-testid="replay-result">
                {v.message}
              </p>
            );
          return (
            <p role="status" data-testid="replay-result" class={v.value.inputMatches === false || v.value.outputMatches === false ? 'bad' : 'ok'}>
              Input {match(v.value.inputMatches)}; output {match(v.value.outputMatches)}. {v.value.conclusion}
            </p>
          );
        }}
      </Show>
    </section>
  );
}
