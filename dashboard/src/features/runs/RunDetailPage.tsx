import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  Link,
  Typography,
} from '@mui/material';
import { useCallback, useState } from 'react';
import type { RunCounts } from '../../api/generated/schema';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { isRunActive, runVersion, useCancelRun, useRun } from './queries';
import { ErrorState, Loading } from '../../shared/components/StateViews';
import { RunProgress, RunStatusChip } from './RunProgress';
import { RunSessionsTable } from './RunSessionsTable';
import { RunSummaryCard } from './RunSummaryCard';
import {
  describeSelection,
  formatCost,
  formatDuration,
  formatTokens,
  formatWhen,
  fresherCounts,
  runTitle,
  skipReason,
} from './format';
import { useBlockedReason } from '../../shared/useMe';

const COUNT_LABELS = [
  ['pending', 'Pending'],
  ['in_progress', 'In progress'],
  ['completed', 'Completed'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
  ['skipped', 'Skipped'],
] as const;

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <>
      <Typography component="dt" variant="body2" color="text.secondary">
        {label}
      </Typography>
      <Typography component="dd" variant="body2" sx={{ m: 0, overflowWrap: 'anywhere' }}>
        {children}
      </Typography>
    </>
  );
}

/** One run: live progress, counts by attempt status, cost and ETA, its selection and limits, its sessions with their
 * scores; cancel with a confirm. */
export function RunDetailPage() {
  const { runId = '' } = useParams();
  const { data: run, error, isPending, refetch } = useRun(runId);
  const cancel = useCancelRun();
  const [confirming, setConfirming] = useState(false);
  const cancelBlocked = useBlockedReason('cancelRun');
  // The counts the attempts table's last read carried (read with its rows); shown when fresher than the run's.
  const [tableCounts, setTableCounts] = useState<{ runId: string; counts: RunCounts } | null>(null);
  const onTableCounts = useCallback((id: string, counts: RunCounts) => setTableCounts({ runId: id, counts }), []);

  if (isPending) return <Loading what="the run" />;
  if (!run) return <ErrorState message={`Could not load the run: ${errorMessage(error)}`} onRetry={() => void refetch()} />;
  const active = isRunActive(run.status);
  const counts = fresherCounts(run.counts, tableCounts?.runId === run.run_id ? tableCounts.counts : null);
  const skipped = Object.entries(counts.skipped_by_reason ?? {});

  return (
    <>
      <Link component={RouterLink} to="/runs" variant="body2">
        ← All runs
      </Link>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'center', my: 1 }}>
        <Typography variant="h5" component="h1" sx={{ flexGrow: 1, overflowWrap: 'anywhere' }}>
          {runTitle(run)}
        </Typography>
        <RunStatusChip status={run.status} />
        {active && (
          <Button variant="outlined" color="error" onClick={() => setConfirming(true)} disabled={cancel.isPending || Boolean(cancelBlocked)}>
            Cancel run
          </Button>
        )}
      </Box>
      {error && <ErrorState message={`Could not refresh the run: ${errorMessage(error)}; showing the last answer`} />}
      {cancel.error && <ErrorState message={`Could not cancel the run: ${errorMessage(cancel.error)}`} />}
      {active && cancelBlocked && <Alert severity="info">{cancelBlocked}</Alert>}
      {cancel.data?.alreadyEnded && (
        <Alert severity="info" sx={{ mb: 1 }} data-testid="cancel-too-late">
          The run had already {cancel.data.run.status === 'completed' ? 'finished' : `ended (${cancel.data.run.status})`} before
          the cancel reached it: nothing was left to cancel.
        </Alert>
      )}
      {run.error_message && <Alert severity="error">{run.error_message}</Alert>}
      <Card variant="outlined" sx={{ my: 2 }}>
        <CardContent>
          <RunProgress run={{ ...run, counts }} label="Run progress" />
          <Box
            sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'repeat(3, 1fr)', md: 'repeat(6, 1fr)' }, mt: 2 }}
            data-testid="run-counts"
          >
            {COUNT_LABELS.map(([key, label]) => (
              <Box key={key} data-testid={`count-${key}`}>
                <Typography variant="caption" color="text.secondary" component="div">
                  {label}
                </Typography>
                <Typography variant="h6" component="div">
                  {counts[key]}
                </Typography>
              </Box>
            ))}
          </Box>
          {skipped.length > 0 && (
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              Skipped:{' '}
              {skipped
                .map(([reason, n]) => `${n} ${skipReason(reason)}`)
                .join(', ')}
            </Typography>
          )}
        </CardContent>
      </Card>
      <RunSummaryCard runId={run.run_id} version={runVersion(run)} />
      <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
        <Card variant="outlined">
          <CardContent>
            <Typography variant="h6" component="h2">
              Cost and time
            </Typography>
            <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto 1fr', gap: 0.5, columnGap: 2, m: 0 }}>
              <Row label="Cost so far">
                <span data-testid="run-cost">{formatCost(run.usage.cost_usd)}</span>
                {run.max_cost_usd !== null && ` of at most ${formatCost(run.max_cost_usd)}`}
              </Row>
              <Row label="Tokens">
                {formatTokens(run.usage.input_tokens)} in, {formatTokens(run.usage.output_tokens)} out
                {run.usage.cache_read_tokens > 0 && `, ${formatTokens(run.usage.cache_read_tokens)} cache read`}
              </Row>
              <Row label="Per session (estimate)">{formatCost(run.estimated_cost_per_session_usd)}</Row>
              <Row label="Time left">{active ? formatDuration(run.eta_seconds) : '–'}</Row>
              <Row label="Created">{formatWhen(run.created_at)}</Row>
              <Row label="Started">{formatWhen(run.started_at)}</Row>
              <Row label="All queued">{formatWhen(run.planned_at)}</Row>
              <Row label="Finished">{formatWhen(run.finished_at)}</Row>
            </Box>
          </CardContent>
        </Card>
        <Card variant="outlined">
          <CardContent>
            <Typography variant="h6" component="h2">
              Selection and limits
            </Typography>
            <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto 1fr', gap: 0.5, columnGap: 2, m: 0 }}>
              <Row label="Sessions">{describeSelection(run)}</Row>
              <Row label="Read from source">{run.sessions_read}</Row>
              <Row label="Max sessions">{run.max_sessions}</Row>
              <Row label="Mode">{run.mode}</Row>
              <Row label="Judge">{run.judge_model}</Row>
              <Row label="Criteria">{run.criteria_hash.slice(0, 12)}</Row>
              <Row label="Name">{run.name}</Row>
              <Row label="Run id">{run.run_id}</Row>
              <Row label="Started by">{run.started_by}</Row>
              {run.stop_reason && <Row label="Stopped early">{skipReason(run.stop_reason)}</Row>}
            </Box>
          </CardContent>
        </Card>
      </Box>
      <RunSessionsTable
        runId={run.run_id}
        runActive={active}
        counts={counts}
        version={runVersion(run)}
        onCounts={onTableCounts}
      />
      <Dialog open={confirming} onClose={() => setConfirming(false)} aria-labelledby="cancel-title">
        <DialogTitle id="cancel-title">Cancel this run?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            Sessions not yet picked up by a scorer end <em>cancelled</em> and never reach the judge; the ones being
            scored now finish. A cancelled run cannot be resumed: start a new one instead.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Keep running</Button>
          <Button
            color="error"
            variant="contained"
            onClick={() => {
              setConfirming(false);
              cancel.mutate(run.run_id);
            }}
          >
            Yes, cancel run
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
