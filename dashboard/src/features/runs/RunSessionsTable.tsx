import {
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
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { ScoreStatus } from '../../api/generated/schema';
import { useRunSessions } from './queries';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { ErrorState, Loading } from '../../shared/components/StateViews';
import { formatWhen } from './format';

const STATUS_COLOURS: Record<ScoreStatus, 'default' | 'primary' | 'success' | 'error' | 'warning'> = {
  pending: 'default',
  in_progress: 'primary',
  completed: 'success',
  failed: 'error',
  cancelled: 'warning',
};

const wide = { display: { xs: 'none', md: 'table-cell' } };

/** The run's attempts, a page at a time by session id: each session links to its page, with the attempt's status,
 * its score in its band's colour once completed, and why it failed or was cancelled. Refreshes while the run is
 * active (the caller passes the run's status, which it polls). */
export function RunSessionsTable({ runId, runActive }: { runId: string; runActive: boolean }) {
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const { data, error, isPending, refetch } = useRunSessions(runId, page, pageSize, runActive);

  return (
    <Paper variant="outlined" sx={{ mt: 2 }} data-testid="run-sessions">
      <Typography variant="h6" component="h2" sx={{ px: 2, pt: 2 }}>
        Sessions
      </Typography>
      {error && (
        <ErrorState message={`Could not load the run's sessions: ${errorMessage(error)}`} onRetry={() => void refetch()} />
      )}
      {isPending && <Loading what="the run's sessions" />}
      {data && data.total_items === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ px: 2, pb: 2 }}>
          {runActive ? 'No session queued yet: the run is still selecting them.' : 'This run scored no session.'}
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
                  <TableCell sx={{ ...wide, width: 190 }}>Scored</TableCell>
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
                        label={item.status.replace('_', ' ')}
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
