import { Box, Chip, LinearProgress, Typography } from '@mui/material';
import type { RunStatus, ScoringRun } from '../../api/generated/schema';
import { describeProgress, progressOf } from './format';

// Outlined chips print their label in the colour: only palettes with a 4.5:1 contrast on white (axe-core's
// color-contrast rule); info and warning fall short.
const STATUS_COLOURS: Record<RunStatus, 'default' | 'primary' | 'success' | 'error'> = {
  planning: 'primary',
  running: 'primary',
  completed: 'success',
  cancelled: 'default',
  failed: 'error',
};

export function RunStatusChip({ status }: { status: RunStatus }) {
  return <Chip size="small" variant="outlined" label={status} color={STATUS_COLOURS[status]} data-testid="run-status" />;
}

/** The bar's segments, left to right: how the ended attempts ended, then the one being scored. */
const SEGMENTS = [
  ['completed', 'success.main'],
  ['failed', 'error.main'],
  ['cancelled', 'grey.500'],
  ['in_progress', 'primary.light'],
] as const;

/** The run's progress: a bar whose segments show the attempts completed, failed and cancelled apart (a cancelled
 * run is not "done": its cancelled part is grey, not a full bar of scores), and the counts in words. Indeterminate
 * while the selection is still being planned and nothing is queued yet. */
export function RunProgress({ run, label }: { run: Pick<ScoringRun, 'status' | 'counts' | 'name'>; label?: string }) {
  const { ended, total } = progressOf(run.counts);
  const planning = run.status === 'planning' && total === 0;
  const text = planning ? 'selecting sessions…' : describeProgress(run.counts, run.status === 'planning');
  const name = label ?? `Progress of ${run.name}`;
  return (
    <Box
      sx={{ minWidth: 0 }}
      data-testid="run-progress"
      data-done={ended}
      data-total={total}
      data-completed={run.counts.completed}
      data-failed={run.counts.failed}
      data-cancelled={run.counts.cancelled}
    >
      {planning ? (
        <LinearProgress variant="indeterminate" aria-label={name} sx={{ height: 8, borderRadius: 1 }} />
      ) : (
        <Box
          role="progressbar"
          aria-label={name}
          aria-valuemin={0}
          aria-valuemax={total}
          aria-valuenow={ended}
          aria-valuetext={text}
          sx={{ display: 'flex', height: 8, borderRadius: 1, overflow: 'hidden', bgcolor: 'grey.200' }}
        >
          {total > 0 &&
            SEGMENTS.map(([key, colour]) =>
              run.counts[key] > 0 ? (
                <Box key={key} data-testid={`progress-${key}`} data-share={run.counts[key] / total} sx={{ width: `${(100 * run.counts[key]) / total}%`, bgcolor: colour }} />
              ) : null,
            )}
        </Box>
      )}
      <Typography variant="caption" color="text.secondary" data-testid="run-progress-text">
        {text}
      </Typography>
    </Box>
  );
}
