// The relative time ranges the Scores and Sessions pages offer ("the last 7 days"), counted from now at each request
// so that a shared URL keeps its meaning.

/** The relative ranges offered, in hours. */
export const RANGES: Record<string, { hours: number; label: string }> = {
  '24h': { hours: 24, label: 'Last 24 h' },
  '7d': { hours: 24 * 7, label: 'Last 7 d' },
  '30d': { hours: 24 * 30, label: 'Last 30 d' },
};

/** The start of a relative range, counted from now rounded down to the minute (so a re-render asks the same). */
export function rangeStart(range: string, now: number = Date.now()): string | null {
  const chosen = RANGES[range];
  if (!chosen) return null;
  const minute = Math.floor(now / 60_000) * 60_000;
  return new Date(minute - chosen.hours * 3_600_000).toISOString();
}
