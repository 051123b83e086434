/**
 * A short figure whose reason is on hover for a mouse. A keyboard reaches it (a tab stop) and sees the
 * reason while it has focus; a screen reader reads the reason as part of its text (visually hidden,
 * since a name given by aria-label is not read on an element with no role).
 */
export function WithReason(props: { class: string; text: string; reason: string }) {
  return (
    <span class={`${props.class} with-reason`} title={props.reason} tabindex="0">
      {props.text}
      <span class="visually-hidden">: {props.reason}</span>
    </span>
  );
}

/** A figure the dashboard cannot vouch for: never a zero or a stale value; the reason is on hover. */
export function Unknown(props: { reason: string }) {
  return <WithReason class="unknown" text="UNKNOWN" reason={props.reason} />;
}

export function NotPermitted(props: { what: string; message: string }) {
  return (
    <p class="not-permitted" role="status" title={props.message}>
      Not permitted: this token cannot read {props.what}. ({props.message})
    </p>
  );
}
