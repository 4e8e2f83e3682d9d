import {
  Box,
  Chip,
  Link,
  Paper,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TablePagination,
  TableRow,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { useEffect, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { type RunCounts, type ScoreStatus, scoreStatusValues } from '../../api/generated/schema';
import { useRunSessions } from './queries';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { ErrorState, Loading } from '../../shared/components/StateViews';
import { formatWhen } from './format';

// Outlined chips print their label in the colour: only palettes with a 4.5:1 contrast on white (warning's orange
// is 3.1:1), so a cancelled attempt is grey.
const STATUS_COLOURS: Record<ScoreStatus, 'default' | 'primary' | 'success' | 'error'> = {
  pending: 'default',
  in_progress: 'primary',
  completed: 'success',
  failed: 'error',
  cancelled: 'default',
};

const STATUS_LABELS: Record<ScoreStatus, string> = {
  pending: 'Pending',
  in_progress: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The status filter's value in the URL (`?status=cancelled`): one of the API's statuses, else none. */
export function statusFromParams(params: URLSearchParams): ScoreStatus | null {
  const value = params.get('status');
  return (scoreStatusValues as readonly string[]).includes(value ?? '') ? (value as ScoreStatus) : null;
}

const wide = { display: { xs: 'none', md: 'table-cell' } };

/** The run's attempts, a page at a time by session id, filtered by status (in the URL, with each status's count
 * from the run): each session links to its page, with the attempt's status, its score in its band's colour once
 * completed, and why it failed or was cancelled. Read again whenever the run's summary changes (`version`). Each
 * page read carries the run's counts as of its rows, handed to `onCounts` (the page shows the fresher counts). */
export function RunSessionsTable({
  runId,
  runActive,
  counts,
  version,
  onCounts,
}: {
  runId: string;
  runActive: boolean;
  counts: RunCounts;
  version: string;
  onCounts?: (runId: string, counts: RunCounts) => void;
}) {
  const [params, setParams] = useSearchParams();
  const status = statusFromParams(params);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const { data, error, isPending, refetch } = useRunSessions(runId, page, pageSize, status, version);
  const readCounts = data?.counts;
  useEffect(() => {
    if (readCounts) onCounts?.(runId, readCounts);
  }, [runId, readCounts, onCounts]);
  const total = scoreStatusValues.reduce((sum, s) => sum + counts[s], 0);
  const filter = (next: ScoreStatus | null) => {
    const merged = new URLSearchParams(params);
    if (next) merged.set('status', next);
    else merged.delete('status');
    setParams(merged, { replace: true });
    setPage(1);
  };

  return (
    <Paper variant="outlined" sx={{ mt: 2 }} data-testid="run-sessions">
      <Typography variant="h6" component="h2" sx={{ px: 2, pt: 2 }}>
        Sessions
      </Typography>
      <Box sx={{ px: 2, py: 1 }}>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={status ?? 'all'}
          onChange={(_, next: ScoreStatus | 'all' | null) => next && filter(next === 'all' ? null : next)}
          aria-label="Show the sessions whose attempt is"
          sx={{ flexWrap: 'wrap' }}
          data-testid="run-status-filter"
        >
          <ToggleButton value="all">All {total}</ToggleButton>
          {scoreStatusValues
            .filter((s) => counts[s] > 0 || s === status)
            .map((s) => (
              <ToggleButton key={s} value={s}>
                {STATUS_LABELS[s]} {counts[s]}
              </ToggleButton>
            ))}
        </ToggleButtonGroup>
      </Box>
      {error && (
        <ErrorState message={`Could not load the run's sessions: ${errorMessage(error)}`} onRetry={() => void refetch()} />
      )}
      {isPending && <Loading what="the run's sessions" />}
      {data && data.total_items === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, pb: 2 }}>
          {status
            ? `No session of this run is ${STATUS_LABELS[status].toLowerCase()}.`
            : runActive
              ? 'No session queued yet: the run is still selecting them.'
              : 'This run scored no session.'}
        </Typography>
      )}
      {data && data.total_items > 0 && (
        <>
          <TableContainer>
            <Table size="small" aria-label="the run's sessions" sx={{ tableLayout: 'fixed' }}>
              <TableHead>
                <TableRow>
                  <TableCell>Session</TableCell>
                  <TableCell sx={{ width: 120 }}>Status</TableCell>
                  <TableCell sx={{ width: 90 }}>Score</TableCell>
                  <TableCell sx={wide}>Error</TableCell>
                  <TableCell sx={{ ...wide, width: 240 }}>Scored</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.items.map((item) => (
                  <TableRow key={item.score_id} data-testid="run-session-row" data-session-id={item.session_id}>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>
                      <Link component={RouterLink} to={`/sessions/${encodeURIComponent(item.session_id)}`}>
                        {item.session_id}
                      </Link>
                    </TableCell>
                    <TableCell>
                      <Chip
                        size="small"
                        variant="outlined"
                        label={STATUS_LABELS[item.status].toLowerCase()}
                        color={STATUS_COLOURS[item.status]}
                        data-testid="run-session-status"
                      />
                    </TableCell>
                    <TableCell>{item.status === 'completed' ? <ScoreBadge score={item} /> : '–'}</TableCell>
                    <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }} data-testid="run-session-error">
                      {item.error_message ?? ''}
                    </TableCell>
                    <TableCell sx={wide}>{formatWhen(item.scored_at)}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <TablePagination
            component="div"
            count={data.total_items}
            page={page - 1}
            rowsPerPage={pageSize}
            rowsPerPageOptions={[10, 20, 50, 100]}
            onPageChange={(_, next) => setPage(next + 1)}
            onRowsPerPageChange={(e) => {
              setPageSize(Number(e.target.value));
              setPage(1);
            }}
          />
        </>
      )}
    </Paper>
  );
}
