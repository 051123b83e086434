/** A `datetime-local` field's value (the person's local time) as an RFC 3339 instant, or undefined when empty or unreadable. */
export function instantOf(local: string): string | undefined {
  if (!local) return undefined;
  const ms = new Date(local).getTime();
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

/** An instant as a `datetime-local` field shows it, in the person's local time (to the minute). */
export function localOf(instant: string | undefined): string {
  if (!instant) return '';
  const d = new Date(instant);
  if (!Number.isFinite(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
