import {
  Chip,
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
import { useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../api/client';
import { useSessionPage } from '../api/queries';
import { ScoreBadge } from '../components/ScoreBadge';
import { EmptyState, ErrorState, Loading } from '../components/StateViews';

const wide = { display: { xs: 'none', md: 'table-cell' } };
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '–');

/** Sessions known to the source, newest first, with their latest score; a row opens the session. */
export function SessionsPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const pageSize = Number(params.get('page_size') ?? '20') || 20;
  const { data, error, isFetching: loading, refetch } = useSessionPage(page, pageSize);

  return (
    <>
      <Typography variant="h5" component="h1" gutterBottom>
        Sessions
      </Typography>
      {error && (
        <ErrorState message={`Could not load the sessions: ${errorMessage(error)}`} onRetry={() => void refetch()} />
      )}
      {loading && !data && <Loading what="sessions" />}
      {data && data.total_items === 0 && (
        <EmptyState title="No sessions yet">The session source has no sessions to show.</EmptyState>
      )}
      {data && data.total_items > 0 && (
        <Paper variant="outlined">
          <TableContainer>
            {/* A fixed layout with the status and score columns sized: at phone width the alert type wraps instead of
                pushing the Score column out of view. */}
            <Table size="small" aria-label="sessions" sx={{ tableLayout: 'fixed', '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: { xs: 116, md: 130 } }}>Status</TableCell>
                  <TableCell>Alert type</TableCell>
                  <TableCell sx={wide}>Agent</TableCell>
                  <TableCell sx={wide}>Submitted by</TableCell>
                  <TableCell sx={{ ...wide, width: 190 }}>Time</TableCell>
                  <TableCell sx={{ width: { xs: 104, md: 130 } }}>Score</TableCell>
                </TableRow>
              </TableHead>
              <TableBody sx={{ opacity: loading ? 0.5 : 1 }}>
                {data.items.map((item) => (
                  <TableRow
                    key={item.session_id}
                    hover
                    sx={{ cursor: 'pointer' }}
                    data-testid="session-row"
                    data-session-id={item.session_id}
                    tabIndex={0}
                    onClick={() => navigate(`/sessions/${encodeURIComponent(item.session_id)}`)}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter') navigate(`/sessions/${encodeURIComponent(item.session_id)}`);
                    }}
                  >
                    <TableCell>
                      <Chip
                        size="small"
                        variant="outlined"
                        label={item.status}
                        data-testid="session-status"
                        sx={{ maxWidth: '100%' }}
                        color={item.status === 'completed' ? 'success' : item.status === 'failed' ? 'error' : 'default'}
                      />
                    </TableCell>
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>
                      <Typography variant="body2" fontWeight={500}>
                        {item.alert_type ?? '–'}
                      </Typography>
                      <Typography variant="caption" color="text.secondary" sx={{ display: { md: 'none' } }}>
                        {when(item.started_at)}
                      </Typography>
                    </TableCell>
                    <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{item.agent_type ?? '–'}</TableCell>
                    <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{item.author ?? '–'}</TableCell>
                    <TableCell sx={wide}>{when(item.started_at)}</TableCell>
                    <TableCell>
                      <ScoreBadge score={item.score} />
                    </TableCell>
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
            onPageChange={(_, next) => setParams({ page: String(next + 1), page_size: String(pageSize) })}
            onRowsPerPageChange={(e) => setParams({ page: '1', page_size: e.target.value })}
          />
        </Paper>
      )}
    </>
  );
}
