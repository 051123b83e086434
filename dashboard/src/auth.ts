import { createSignal } from 'solid-js';

/** The person's token lives in this tab's session storage only: nothing is kept server side. */
const KEY = 'suite.dashboard.token';

const [token, setTokenSignal] = createSignal<string | null>(sessionStorage.getItem(KEY));

export { token };

export function setToken(value: string | null): void {
  const t = value?.trim() || null;
  if (t === null) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, t);
  setTokenSignal(t);
}
