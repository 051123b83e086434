/** A figure the dashboard cannot vouch for: never a zero or a stale value; the reason is on hover. */
export function Unknown(props: { reason: string }) {
  return <span class="unknown" title={props.reason} tabindex="0" aria-label={`unknown: ${props.reason}`}>UNKNOWN</span>;
}

export function NotPermitted(props: { what: string; message: string }) {
  return <p class="not-permitted" role="status" title={props.message}>Not permitted: this token cannot read {props.what}. ({props.message})</p>;
}
