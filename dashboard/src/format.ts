/** Times in the operator's own time zone (the browser's), with the zone shown once in the header. */
export const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
});
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** "in 3 hours" / "2 days ago" */
export function fmtRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  if (abs < 60_000) return relative.format(Math.round(diff / 1000), 'second');
  if (abs < 3_600_000) return relative.format(Math.round(diff / 60_000), 'minute');
  if (abs < 86_400_000) return relative.format(Math.round(diff / 3_600_000), 'hour');
  return relative.format(Math.round(diff / 86_400_000), 'day');
}

export function fmtScore(n: unknown): string {
  return typeof n === 'number' ? n.toFixed(3) : '—';
}

export function fmtNumber(n: unknown): string {
  return typeof n === 'number' ? n.toLocaleString() : '—';
}

/** A short id that tells rows apart: the last 8 hex digits. Ids are UUIDv7, whose first digits are the creation
 * time, so rows created in the same minute share them; the last digits are random. */
export function shortId(id: string | null | undefined): string {
  if (!id) return '—';
  return id.length > 8 ? `…${id.slice(-8)}` : id;
}

export function humanize(s: string | null | undefined): string {
  return s ? s.replace(/_/g, ' ') : '—';
}
