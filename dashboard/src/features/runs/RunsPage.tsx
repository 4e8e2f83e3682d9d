import {
  Box,
  Button,
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
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { isRunActive, useRunPage } from './queries';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { RunProgress, RunStatusChip } from './RunProgress';
import { describeSelection, formatCost, formatWhen, runTitle } from './format';

const wide = { display: { xs: 'none', md: 'table-cell' } };

/** Scoring runs, newest first, with live progress while any of them is planning or running. */
export function RunsPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const pageSize = Number(params.get('page_size') ?? '20') || 20;
  const { data, error, isFetching, isPending, refetch } = useRunPage(page, pageSize);
  const live = data?.items.some((r) => isRunActive(r.status)) ?? false;
  const open = (runId: string) => navigate(`/runs/${runId}`);

  return (
    <>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', gap: 2, alignItems: 'center', mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ flexGrow: 1 }}>
          Scoring runs
        </Typography>
        <Button variant="contained" component={RouterLink} to="/runs/new">
          New run
        </Button>
      </Box>
      {live && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} role="status">
          Updating every few seconds while a run is active.
        </Typography>
      )}
      {error && <ErrorState message={`Could not load the runs: ${errorMessage(error)}`} onRetry={() => void refetch()} />}
      {isPending && isFetching && <Loading what="runs" />}
      {data && data.total_items === 0 && (
        <EmptyState title="No runs yet">
          A run scores many sessions at once: start one with <strong>New run</strong>.
        </EmptyState>
      )}
      {data && data.total_items > 0 && (
        <Paper variant="outlined">
          <TableContainer>
            <Table size="small" aria-label="scoring runs" sx={{ tableLayout: 'fixed', '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell>Run</TableCell>
                  <TableCell sx={{ width: { xs: 96, md: 110 } }}>Status</TableCell>
                  <TableCell sx={{ width: { xs: '34%', md: '24%' } }}>Progress</TableCell>
                  <TableCell sx={{ ...wide, width: 90 }}>Cost</TableCell>
                  <TableCell sx={{ ...wide, width: 180 }}>Started</TableCell>
                  <TableCell sx={{ ...wide, width: 160 }}>By</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {data.items.map((run) => (
                  <TableRow
                    key={run.run_id}
                    hover
                    sx={{ cursor: 'pointer' }}
                    data-testid="run-row"
                    data-run-id={run.run_id}
                    onClick={() => open(run.run_id)}
                  >
                    <TableCell sx={{ overflowWrap: 'anywhere' }}>
                      {/* a real link (open in a new tab, copy its address); a click elsewhere on the row opens it too */}
                      <Link
                        component={RouterLink}
                        to={`/runs/${run.run_id}`}
                        variant="body2"
                        fontWeight={500}
                        display="block"
                        onClick={(e) => e.stopPropagation()}
                      >
                        {runTitle(run)}
                      </Link>
                      <Typography variant="caption" color="text.secondary" data-testid="run-subtitle">
                        {runTitle(run) === run.name ? `${describeSelection(run)} · ` : ''}
                        {run.mode} · max {run.max_sessions}
                      </Typography>
                    </TableCell>
                    <TableCell>
                      <RunStatusChip status={run.status} />
                    </TableCell>
                    <TableCell>
                      <RunProgress run={run} />
                    </TableCell>
                    <TableCell sx={wide}>{formatCost(run.usage.cost_usd)}</TableCell>
                    <TableCell sx={wide}>{formatWhen(run.started_at ?? run.created_at)}</TableCell>
                    <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{run.started_by}</TableCell>
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
