import { createSignal } from 'solid-js';

/** One clock for every relative time on the page: they all move together, twice a minute. */
const [now, setNow] = createSignal(Date.now());
window.setInterval(() => setNow(Date.now()), 30_000);

/** "just now", "3 min ago", "2 h ago", "5 days ago"; a time ahead of now reads "in 3 min". */
// The clock ticks twice a minute: a time made since its last tick is not "in a few seconds".
export function relative(iso: string, at = Math.max(now(), Date.now())): string {
  const ms = at - Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const ahead = ms < 0;
  const s = Math.abs(ms) / 1000;
  const say = (n: number, unit: string) => (ahead ? `in ${n} ${unit}` : `${n} ${unit} ago`);
  if (s < 45) return ahead ? 'in a few seconds' : 'just now';
  if (s < 3600) return say(Math.max(1, Math.round(s / 60)), 'min');
  if (s < 86_400) return say(Math.round(s / 3600), 'h');
  const days = Math.round(s / 86_400);
  return say(days, days === 1 ? 'day' : 'days');
}

/**
 * A time as people read it in a table ("3 min ago"), with the exact ISO time on hover (title) and
 * on keyboard focus (shown while focused, and read by screen readers as part of the text).
 */
export function RelativeTime(props: { iso: string | null | undefined; none?: string }) {
  return (
    <>
      {props.iso == null ? (
        (props.none ?? '—')
      ) : (
        // A span, not <time>: a focusable <time> has the role "time", which takes no name, and
        // would be a tab stop a screen reader cannot name. Built as WithReason is (views/Unknown.tsx).
        <span class="relative with-reason" data-datetime={props.iso} title={props.iso} tabindex="0">
          {relative(props.iso)}
          <span class="visually-hidden"> ({props.iso})</span>
        </span>
      )}
    </>
  );
}
