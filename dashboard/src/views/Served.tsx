import { Show, type JSX } from 'solid-js';
import type { ApiResult } from '../api';
import { Loaded } from './Loaded';

/**
 * A section read from a route a suite may not serve yet (newer than some suites the dashboard meets):
 * while the route answers 404 the section is not shown at all, never an empty table or made-up
 * figures; any other answer is shown as `Loaded` shows it.
 */
export function Served<T>(props: { result: ApiResult<T> | undefined; id: string; title: string; what: string; children: (value: T) => JSX.Element }) {
  const absent = () => props.result?.kind === 'error' && props.result.status === 404;
  return (
    <Show when={!absent()}>
      <section aria-labelledby={props.id} data-testid={`${props.id}-section`}>
        <h2 id={props.id}>{props.title}</h2>
        <Loaded result={props.result} what={props.what}>
          {props.children}
        </Loaded>
      </section>
    </Show>
  );
}
