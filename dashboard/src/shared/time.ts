// Times as the dashboard shows them: in the reader's own time zone, which every timestamp names ("26 Nov 2026,
// 15:39 UTC"), so a time copied into a ticket or read by a colleague elsewhere is never ambiguous.

const MINUTES: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};
const SECONDS: Intl.DateTimeFormatOptions = { ...MINUTES, second: '2-digit' };

let minutes: Intl.DateTimeFormat | null = null;
let seconds: Intl.DateTimeFormat | null = null;

/** An ISO 8601 time in the reader's time zone, with the zone's name; a dash when there is none. `withSeconds` for
 * the moments of a run, which are seconds apart. */
export function formatDateTime(iso: string | null | undefined, { withSeconds = false } = {}): string {
  if (!iso) return '–';
  const format = withSeconds ? (seconds ??= new Intl.DateTimeFormat(undefined, SECONDS)) : (minutes ??= new Intl.DateTimeFormat(undefined, MINUTES));
  return format.format(new Date(iso));
}
