import { For, Show } from 'solid-js';
import { A } from '@solidjs/router';
import { VerifyButton } from './VerifyButton';
import { ACTION_SCOPE, VERIFY_SCOPE, type ConnectorInfo } from './types';

/** One connector: configured or not (the missing variables named), what verify checks, its actions. */
export function ConnectorCard(props: { c: ConnectorInfo; detailed?: boolean }) {
  const c = () => props.c;
  return (
    <article class="connector" data-connector={c().id} aria-labelledby={`connector-${c().id}`}>
      <h2 id={`connector-${c().id}`}>
        <Show when={!props.detailed} fallback={c().title}>
          <A href={`/connectors/${c().id}`}>{c().title}</A>
        </Show>{' '}
        <span class={c().configured ? 'ok' : 'warn'} data-testid="configured">
          {c().configured ? 'configured' : 'not configured'}
        </span>
      </h2>
      <p>{c().description}</p>
      <Show when={!c().configured}>
        <p>Missing: {c().missing.join(', ')} (set by the operator in the suite's environment).</p>
      </Show>
      <p>
        <strong>Verify</strong> ({VERIFY_SCOPE}): {c().verifies}
      </p>
      <VerifyButton id={c().id} />
      <h3>Actions ({ACTION_SCOPE})</h3>
      <ul>
        <For each={c().actions}>
          {(a) => (
            <li data-action={a.name}>
              <code>{a.name}</code> <span class={a.effect === 'write' ? 'warn' : ''}>{a.effect}</span>: {a.description}
              <Show when={props.detailed}>
                <ul class="connector-fields">
                  <For each={Object.entries(a.input.properties ?? {})}>
                    {([field, f]) => (
                      <li>
                        <code>{field}</code>
                        {(a.input.required ?? []).includes(field) ? ' (required)' : ''}
                        {f.description ? `: ${f.description}` : ''}
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
            </li>
          )}
        </For>
      </ul>
      <Show when={props.detailed}>
        <table class="connector-vars">
          <caption>Configuration variables (values are never shown)</caption>
          <thead>
            <tr>
              <th scope="col">variable</th>
              <th scope="col">set</th>
              <th scope="col">required</th>
              <th scope="col">secret</th>
            </tr>
          </thead>
          <tbody>
            <For each={c().variables}>
              {(v) => (
                <tr>
                  <td title={v.description}>{v.name}</td>
                  <td>{v.set ? 'yes' : v.default ? `no (default ${v.default})` : 'no'}</td>
                  <td>{v.required ? 'yes' : 'no'}</td>
                  <td>{v.secret ? 'yes' : 'no'}</td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </Show>
    </article>
  );
}
