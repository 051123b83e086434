import { createSignal, Match, Switch } from 'solid-js';
import { errorText, failureText, postToken, type Answer } from './call';
import { when } from './capabilities';

type Validation =
  | { valid: true; sub: string; scope: string[]; exp: number; requiredScope?: string; scopeSatisfied?: boolean }
  | { valid: false; error: string; requiredScope?: string };

/** `POST /auth/token/validate`: the token's claims as the server reads them, or why it is not valid. */
export function ValidatePanel() {
  const [candidate, setCandidate] = createSignal('');
  const [required, setRequired] = createSignal('');
  const [busy, setBusy] = createSignal(false);
  const [answer, setAnswer] = createSignal<Answer | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setAnswer(null);
    const body = { token: candidate().trim(), ...(required().trim() ? { requiredScope: required().trim() } : {}) };
    setAnswer(await postToken('/auth/token/validate', body, { bearer: true }));
    setBusy(false);
  };
  // 200 is a valid token, 400 with `valid:false` an invalid one; anything else is a refusal or an error.
  const validation = () => {
    const a = answer();
    return a?.kind === 'answer' && (a.status === 200 || a.status === 400) && typeof (a.body as { valid?: unknown })?.valid === 'boolean'
      ? (a.body as Validation)
      : null;
  };
  return (
    <form onSubmit={submit} aria-labelledby="validate-title">
      <h2 id="validate-title">Validate a token</h2>
      <div class="field">
        <label for="validate-token">Token</label>
        <textarea id="validate-token" rows="3" required value={candidate()} onInput={(e) => setCandidate(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="validate-scope">Required scope (optional)</label>
        <input id="validate-scope" value={required()} onInput={(e) => setRequired(e.currentTarget.value)} />
      </div>
      <button type="submit" disabled={busy()}>
        Validate
      </button>
      <div role="status" data-testid="validate-result">
        <Switch>
          <Match when={validation()?.valid === true && (validation() as Validation & { valid: true })}>
            {(v) => (
              <dl class="fields claims">
                <dt>valid</dt>
                <dd class="ok">yes{v().requiredScope ? `, grants ${v().requiredScope}` : ''}</dd>
                <dt>sub</dt>
                <dd>{v().sub}</dd>
                <dt>scope</dt>
                <dd>{v().scope.join(' ')}</dd>
                <dt>expires</dt>
                <dd>{when(v().exp)}</dd>
              </dl>
            )}
          </Match>
          <Match when={validation()?.valid === false && (validation() as Validation & { valid: false })}>
            {(v) => (
              <p class="bad">
                Not valid: {v().error}
                {v().requiredScope ? ` (required scope ${v().requiredScope})` : ''}
              </p>
            )}
          </Match>
          <Match when={answer()?.kind === 'unreachable'}>
            <p class="bad">{failureText(null, (answer() as { message: string }).message)}</p>
          </Match>
          <Match when={answer()?.kind === 'answer'}>
            <p class="bad">
              {failureText((answer() as { status: number }).status, errorText((answer() as { status: number }).status, (answer() as { body: unknown }).body))}
            </p>
          </Match>
        </Switch>
      </div>
    </form>
  );
}
