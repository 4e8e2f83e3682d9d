import {
  Box,
  Button,
  FormControlLabel,
  Link,
  MenuItem,
  Paper,
  Stack,
  Switch,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TableSortLabel,
  TextField,
  Typography,
} from '@mui/material';
import { type FormEvent, useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router-dom';
import { errorMessage, fleetScoresCsvUrl } from '../api/client';
import type { FleetScore } from '../api/generated/schema';
import { useFleetScores, useScoreBands } from '../api/queries';
import { CursorPager } from '../components/CursorPager';
import { OutcomeChip } from '../components/OutcomeChip';
import { ScoreBadge } from '../components/ScoreBadge';
import { EmptyState, ErrorState, Loading } from '../components/StateViews';
import {
  DIMENSIONS,
  NO_FILTERS,
  type ScoreFilters,
  type ScoresState,
  type SortColumn,
  paramsFromState,
  queryFromState,
  stateFromParams,
} from './scoresQuery';

// Secondary columns are hidden at phone width, as on the sessions list: the session and its total stay in view.
const wide = { display: { xs: 'none', md: 'table-cell' } };
const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '–');

const DIMENSION_LABELS: Record<(typeof DIMENSIONS)[number], string> = {
  logical_flow: 'Logical flow',
  consistency: 'Consistency',
  tool_relevance: 'Tool relevance',
  synthesis_quality: 'Synthesis',
};

/** The filter form: edited as a draft, applied to the URL (which starts again at the first page) on Apply. */
function ScoreFiltersForm({ filters, onApply }: { filters: ScoreFilters; onApply: (filters: ScoreFilters) => void }) {
  const [draft, setDraft] = useState(filters);
  const { data: bands } = useScoreBands();
  const set = (key: keyof ScoreFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const criteriaOptions = ['current', 'any', ...(['current', 'any'].includes(draft.criteria) ? [] : [draft.criteria])];
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(draft);
  };
  return (
    <Box component="form" aria-label="score filters" onSubmit={submit} sx={{ mb: 2 }}>
      <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1.5} alignItems="center">
        <TextField select size="small" label="Criteria" value={draft.criteria} onChange={set('criteria')} sx={{ minWidth: 130 }}>
          {criteriaOptions.map((c) => (
            <MenuItem key={c} value={c}>
              {c === 'current' ? 'Current' : c === 'any' ? 'Any' : `${c.slice(0, 12)}…`}
            </MenuItem>
          ))}
        </TextField>
        <TextField
          size="small"
          type="number"
          label="Min score"
          value={draft.minScore}
          onChange={set('minScore')}
          slotProps={{ htmlInput: { min: 0, max: 100 } }}
          sx={{ width: 110 }}
        />
        <TextField
          size="small"
          type="number"
          label="Max score"
          value={draft.maxScore}
          onChange={set('maxScore')}
          slotProps={{ htmlInput: { min: 0, max: 100 } }}
          sx={{ width: 110 }}
        />
        <TextField
          select
          size="small"
          label="Band"
          value={draft.band}
          onChange={set('band')}
          slotProps={{ select: { displayEmpty: true }, inputLabel: { shrink: true } }}
          sx={{ minWidth: 140 }}
        >
          <MenuItem value="">Any</MenuItem>
          {(bands ?? []).map((b) => (
            <MenuItem key={b.band} value={b.band}>
              {b.label}
            </MenuItem>
          ))}
          {draft.band && !(bands ?? []).some((b) => b.band === draft.band) && <MenuItem value={draft.band}>{draft.band}</MenuItem>}
        </TextField>
        <TextField size="small" label="Agent" value={draft.agent} onChange={set('agent')} />
        <TextField size="small" label="Alert type" value={draft.alertType} onChange={set('alertType')} />
        <TextField size="small" label="Missing tool" value={draft.missingTool} onChange={set('missingTool')} />
        <FormControlLabel
          control={<Switch checked={draft.latestOnly} onChange={(e) => setDraft({ ...draft, latestOnly: e.target.checked })} />}
          label="Latest only"
        />
        <Button type="submit" variant="contained">
          Apply
        </Button>
        <Button onClick={() => onApply(NO_FILTERS)}>Clear</Button>
      </Stack>
    </Box>
  );
}

function SortHeader({ column, label, state, onSort, sx }: { column: SortColumn; label: string; state: ScoresState; onSort: (c: SortColumn) => void; sx?: object }) {
  const active = state.sort === column;
  return (
    <TableCell sx={sx} sortDirection={active ? state.order : false}>
      <TableSortLabel active={active} direction={active ? state.order : 'desc'} onClick={() => onSort(column)}>
        {label}
      </TableSortLabel>
    </TableCell>
  );
}

function ScoreRow({ row }: { row: FleetScore }) {
  const facts = row.session_facts;
  return (
    <TableRow data-testid="score-row" data-session-id={row.session_id}>
      <TableCell sx={{ overflowWrap: 'anywhere' }}>
        <Link component={RouterLink} to={`/sessions/${encodeURIComponent(row.session_id)}`}>
          {row.session_id}
        </Link>
        <Typography variant="caption" color="text.secondary" component="div" sx={{ display: { md: 'none' } }}>
          {facts?.agent ?? '–'} · {when(row.scored_at)}
        </Typography>
      </TableCell>
      <TableCell>
        <ScoreBadge score={row} />
      </TableCell>
      {DIMENSIONS.map((d) => (
        <TableCell key={d} sx={wide}>
          {row.score_breakdown?.[d] ?? '–'}
        </TableCell>
      ))}
      <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{facts?.agent ?? '–'}</TableCell>
      <TableCell sx={{ ...wide, overflowWrap: 'anywhere' }}>{facts?.alert_type ?? '–'}</TableCell>
      <TableCell sx={wide}>{row.outcome ? <OutcomeChip outcome={row.outcome} /> : '–'}</TableCell>
      <TableCell sx={wide}>{when(row.scored_at)}</TableCell>
      <TableCell sx={wide}>{when(facts?.started_at)}</TableCell>
    </TableRow>
  );
}

/** The fleet query as a table: filters, sortable columns, cursor paging and a CSV download, all kept in the URL. */
export function ScoresPage() {
  const [params, setParams] = useSearchParams();
  const state = stateFromParams(params);
  const query = queryFromState(state);
  const { data, error, isFetching: loading, refetch } = useFleetScores(query);
  const go = (next: ScoresState) => setParams(paramsFromState(next));

  const onSort = (column: SortColumn) =>
    go({ ...state, sort: column, order: state.sort === column && state.order === 'desc' ? 'asc' : 'desc', cursors: [] });
  const filtersKey = paramsFromState({ ...state, cursors: [] }).toString();

  return (
    <>
      <Stack direction="row" alignItems="baseline" justifyContent="space-between" flexWrap="wrap" gap={1}>
        <Typography variant="h5" component="h1" gutterBottom>
          Scores
        </Typography>
        <Button component="a" href={fleetScoresCsvUrl(query)} download data-testid="scores-csv">
          Download CSV
        </Button>
      </Stack>
      <ScoreFiltersForm key={filtersKey} filters={state.filters} onApply={(filters) => go({ ...state, filters, cursors: [] })} />
      {error && <ErrorState message={`Could not load the scores: ${errorMessage(error)}`} onRetry={() => void refetch()} />}
      {loading && !data && <Loading what="scores" />}
      {data && data.items.length === 0 && (
        <EmptyState title="No scores match">Change or clear the filters to see more.</EmptyState>
      )}
      {data && data.items.length > 0 && (
        <Paper variant="outlined">
          <TableContainer>
            <Table size="small" aria-label="scores" sx={{ tableLayout: 'fixed', '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: { md: 300 } }}>Session</TableCell>
                  <SortHeader column="total_score" label="Total" state={state} onSort={onSort} sx={{ width: { xs: 104, md: 120 } }} />
                  {DIMENSIONS.map((d) => (
                    <SortHeader key={d} column={d} label={DIMENSION_LABELS[d]} state={state} onSort={onSort} sx={wide} />
                  ))}
                  <TableCell sx={wide}>Agent</TableCell>
                  <TableCell sx={wide}>Alert type</TableCell>
                  <TableCell sx={wide}>Root cause</TableCell>
                  <SortHeader column="scored_at" label="Scored" state={state} onSort={onSort} sx={wide} />
                  <SortHeader column="session_started_at" label="Started" state={state} onSort={onSort} sx={wide} />
                </TableRow>
              </TableHead>
              <TableBody sx={{ opacity: loading ? 0.5 : 1 }}>
                {data.items.map((row) => (
                  <ScoreRow key={row.score_id} row={row} />
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          <CursorPager
            cursors={state.cursors}
            nextCursor={data.next_cursor}
            loading={loading}
            onCursors={(cursors) => go({ ...state, cursors })}
          />
        </Paper>
      )}
    </>
  );
}
