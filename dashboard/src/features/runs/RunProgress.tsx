import { Box, Chip, LinearProgress, Typography } from '@mui/material';
import type { RunStatus, ScoringRun } from '../../api/generated/schema';
import { progressOf } from './format';

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

/** The run's progress bar and "done / queued": indeterminate while the selection is still being planned and nothing
 * is queued yet. */
export function RunProgress({ run, label }: { run: Pick<ScoringRun, 'status' | 'counts' | 'name'>; label?: string }) {
  const { done, total, percent } = progressOf(run.counts);
  const planning = run.status === 'planning' && total === 0;
  return (
    <Box sx={{ minWidth: 0 }} data-testid="run-progress" data-done={done} data-total={total}>
      <LinearProgress
        variant={planning ? 'indeterminate' : 'determinate'}
        value={percent}
        aria-label={label ?? `Progress of ${run.name}`}
        color={run.status === 'failed' ? 'error' : run.status === 'cancelled' ? 'warning' : 'primary'}
        sx={{ height: 8, borderRadius: 1 }}
      />
      <Typography variant="caption" color="text.secondary" data-testid="run-progress-text">
        {planning
          ? 'selecting sessions…'
          : `${done} of ${total} done${run.status === 'planning' ? ' (still selecting)' : ''}`}
      </Typography>
    </Box>
  );
}
