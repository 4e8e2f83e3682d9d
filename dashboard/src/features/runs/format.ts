// How a run's figures read on the page: progress, durations, costs, tokens.
import type { RunCounts, ScoringRun } from '../../api/generated/schema';
import { formatDateTime } from '../../shared/time';

/** Attempts queued so far and how many of them ended (completed, failed or cancelled). */
export function progressOf(counts: RunCounts): { ended: number; total: number } {
  const ended = counts.completed + counts.failed + counts.cancelled;
  return { ended, total: ended + counts.pending + counts.in_progress };
}

/** The fresher of two reads of a run's counts: the one with more ended attempts (an attempt that ended never
 * returns, so ended counts only grow). The run is polled and its attempts page is read at other moments, each with
 * its own counts; the page shows the fresher, so its counts never lag the rows of its table ("0 scored" beside two
 * completed rows). On a tie, `table`'s (read with the rows shown). */
export function fresherCounts(run: RunCounts, table: RunCounts | null | undefined): RunCounts {
  if (!table) return run;
  return progressOf(run).ended > progressOf(table).ended ? run : table;
}

/** The run's attempts in words, how each ended kept apart: "8 scored, 52 cancelled of 60", "3 scored of 10 · 7 to
 * go". A cancelled attempt was never scored, so it is never counted as done. */
export function describeProgress(counts: RunCounts, stillSelecting = false): string {
  const { ended, total } = progressOf(counts);
  const parts = [`${counts.completed} scored`];
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.cancelled) parts.push(`${counts.cancelled} cancelled`);
  const left = total - ended;
  return `${parts.join(', ')} of ${total}${left ? ` · ${left} to go` : ''}${stillSelecting ? ' (still selecting)' : ''}`;
}

/** "45 s", "3 min", "1 h 5 min": a duration as a person reads it. */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '–';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest ? `${hours} h ${rest} min` : `${hours} h`;
}

/** A cost in US dollars; `unknown` when the pricing table has no price for the judge model. */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined) return 'unknown';
  return usd < 0.01 && usd > 0 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

export const formatTokens = (tokens: number): string => tokens.toLocaleString('en-US');

/** A run's moments are seconds apart: they are shown to the second, with the time zone. */
export const formatWhen = (iso: string | null | undefined): string => formatDateTime(iso, { withSeconds: true });

/** The reasons sessions were skipped, in words (the API's keys are snake_case). */
export const skipReason = (reason: string): string => reason.replaceAll('_', ' ');

/** What the run selects, in one line. */
export function describeSelection(run: Pick<ScoringRun, 'selection'>): string {
  const s = run.selection;
  const parts: string[] = [WHICH_LABELS[s.which ?? 'unscored']];
  if (s.which === 'score_below' && s.score_below != null) parts[0] = `score below ${s.score_below}`;
  if (s.agent) parts.push(`agent ${s.agent}`);
  if (s.alert_type) parts.push(`alert type ${s.alert_type}`);
  if (s.statuses?.length) parts.push(`status ${s.statuses.join(' or ')}`);
  if (s.submitted_after) parts.push(`from ${formatWhen(s.submitted_after)}`);
  if (s.submitted_before) parts.push(`before ${formatWhen(s.submitted_before)}`);
  if (s.session_ids?.length) parts.push(`${s.session_ids.length} listed session${s.session_ids.length === 1 ? '' : 's'}`);
  return parts.join(', ');
}

export const WHICH_LABELS: Record<NonNullable<ScoringRun['selection']['which']>, string> = {
  unscored: 'never scored',
  not_current_criteria: 'not scored with the current criteria',
  failed: 'latest attempt failed',
  all: 'all sessions',
  score_below: 'score below a threshold',
  with_reference: 'with a known root cause (a benchmark)',
};

/** The name the API gives a run started without one ("unscored run by alice"): it says little, so such a run is
 * titled by what it selected and when instead. */
const defaultName = (run: Pick<ScoringRun, 'name' | 'selection' | 'started_by'>): boolean =>
  run.name === `${run.selection.which ?? 'unscored'} run by ${run.started_by}`;

/** A run's title: its own name, or (for an unnamed run) its selection and the day it was created, e.g. "Never
 * scored, agent KubernetesAgent · 1 Dec 2026, 09:30". Never the raw id. */
export function runTitle(run: Pick<ScoringRun, 'name' | 'selection' | 'started_by' | 'created_at'>): string {
  if (!defaultName(run)) return run.name;
  const selection = describeSelection(run);
  return `${selection.charAt(0).toUpperCase()}${selection.slice(1)} · ${formatDateTime(run.created_at)}`;
}
