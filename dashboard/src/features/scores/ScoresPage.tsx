import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Chip,
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
import { errorMessage, fleetScoresCsvUrl } from '../../api/client';
import { Folding } from '../../shared/components/Folding';
import type { FilterValues, FleetScore } from '../../api/generated/schema';
import { useQueryClient } from '@tanstack/react-query';
import { criteriaLabel, criteriaName, useCriteriaInUse, useCriteriaNames, useRubricDimensions } from '../../shared/criteria';
import { useScoreBands } from '../../shared/scoreBands';
import { CursorPager } from '../../shared/components/CursorPager';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { OutcomeChip } from '../../shared/components/OutcomeChip';
import { RangeToggle } from '../../shared/components/RangeToggle';
import { SessionIdChip, shortSessionId } from '../../shared/components/SessionId';
import { EmptyState, ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { type RubricDimension, dimensionsOf } from '../../shared/dimensions';
import {
  NO_FILTERS,
  type ScoreFilters,
  type ScoresState,
  type SortColumn,
  isDimensionSort,
  paramsFromState,
  problemsOf,
  queryFromState,
  sortWithin,
  stateFromParams,
} from './urlState';
import { type FilterField, scoresKeys, useFilterValues, useFleetScores } from './queries';
import { formatDateTime } from '../../shared/time';
import { breakable } from '../../shared/breakable';

// Secondary columns are hidden at phone width, as on the sessions list: the session and its total stay in view.
const wide = { display: { xs: 'none', md: 'table-cell' } };
const when = formatDateTime;


/** A text filter that offers the values the scores have (with their sessions) as you type; any text may be typed,
 * and the API matches it in any case. */
function ValueFilter({
  field,
  label,
  criteria,
  value,
  onChange,
}: {
  field: FilterField;
  label: string;
  criteria: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const { data } = useFilterValues(field, criteria);
  const values = data?.values ?? [];
  const sessions = new Map(values.map((v) => [v.value, v.sessions]));
  return (
    <Autocomplete
      freeSolo
      size="small"
      options={values.map((v) => v.value)}
      inputValue={value}
      onInputChange={(_, text) => onChange(text)}
      renderOption={({ key, ...props }, option) => (
        <Box component="li" key={key} {...props} sx={{ display: 'flex', justifyContent: 'space-between', gap: 2 }}>
          <span>{option}</span>
          <Typography component="span" variant="caption" color="text.secondary">
            {sessions.get(option) ?? ''}
          </Typography>
        </Box>
      )}
      renderInput={(params) => <TextField {...params} label={label} />}
      sx={{ width: 200 }}
    />
  );
}

/** The value as the scores spell it when the typed text is one of them in another case (the API would match it
 * anyway; the URL then reads as the data). */
function spelled(text: string, known: string[] | undefined): string {
  const wanted = text.trim().toLowerCase();
  return known?.find((value) => value.toLowerCase() === wanted) ?? text.trim();
}

/** The filter form: edited as a draft, checked as it is typed, applied to the URL (which starts again at the first
 * page) on Apply. */
function ScoreFiltersForm({ filters, onApply }: { filters: ScoreFilters; onApply: (filters: ScoreFilters) => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(filters);
  const { data: bands } = useScoreBands();
  const { data: criteria = [] } = useCriteriaInUse();
  const problems = problemsOf(draft);
  const invalid = Object.keys(problems).length > 0;
  const set = (key: keyof ScoreFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const current = criteria.find((c) => c.is_current);
  const listed = ['current', 'any', ...criteria.map((c) => c.criteria_hash)];
  const criteriaOptions = listed.includes(draft.criteria) ? listed : [...listed, draft.criteria];
  const criteriaLabelOf = (value: string) => {
    if (value === 'current') return current ? `Current: ${criteriaLabel(current)}` : 'Current';
    if (value === 'any') return 'Any';
    const known = criteria.find((c) => c.criteria_hash === value);
    return known ? criteriaName(known) : `#${value.slice(0, 8)}`;
  };
  const known = (field: FilterField) =>
    queryClient.getQueryData<FilterValues>(scoresKeys.values(field, draft.criteria))?.values.map((v) => v.value);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid) return;
    onApply({
      ...draft,
      agent: spelled(draft.agent, known('agent')),
      alertType: spelled(draft.alertType, known('alert_type')),
      missingTool: spelled(draft.missingTool, known('missing_tool')),
    });
  };
  const problem = (key: keyof ScoreFilters) => ({ error: Boolean(problems[key]), helperText: problems[key] });
  return (
    <Box component="form" aria-label="score filters" onSubmit={submit} noValidate sx={{ mb: 2 }}>
      <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1.5} alignItems="flex-start">
        <TextField select size="small" label="Criteria" value={draft.criteria} onChange={set('criteria')} sx={{ minWidth: 160, maxWidth: '100%' }}>
          {criteriaOptions.map((c) => (
            <MenuItem key={c} value={c}>
              {criteriaLabelOf(c)}
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
          sx={{ width: 130 }}
          {...problem('minScore')}
        />
        <TextField
          size="small"
          type="number"
          label="Max score"
          value={draft.maxScore}
          onChange={set('maxScore')}
          slotProps={{ htmlInput: { min: 0, max: 100 } }}
          sx={{ width: 130 }}
          {...problem('maxScore')}
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
        <ValueFilter field="agent" label="Agent" criteria={draft.criteria} value={draft.agent} onChange={(agent) => setDraft({ ...draft, agent })} />
        <ValueFilter
          field="alert_type"
          label="Alert type"
          criteria={draft.criteria}
          value={draft.alertType}
          onChange={(alertType) => setDraft({ ...draft, alertType })}
        />
        <ValueFilter
          field="missing_tool"
          label="Missing tool"
          criteria={draft.criteria}
          value={draft.missingTool}
          onChange={(missingTool) => setDraft({ ...draft, missingTool })}
        />
        <TextField
          size="small"
          type="date"
          label="Scored from (UTC)"
          value={draft.scoredAfter.slice(0, 10)}
          onChange={set('scoredAfter')}
          slotProps={{ inputLabel: { shrink: true } }}
          sx={{ width: 170 }}
          {...problem('scoredAfter')}
        />
        <TextField
          size="small"
          type="date"
          label="Scored before (UTC)"
          value={draft.scoredBefore.slice(0, 10)}
          onChange={set('scoredBefore')}
          slotProps={{ inputLabel: { shrink: true } }}
          sx={{ width: 170 }}
          {...problem('scoredBefore')}
        />
        <FormControlLabel
          control={<Switch checked={draft.latestOnly} onChange={(e) => setDraft({ ...draft, latestOnly: e.target.checked })} />}
          label="Latest only"
        />
        <Button type="submit" variant="contained" disabled={invalid}>
          Apply
        </Button>
        <Button onClick={() => onApply(NO_FILTERS)}>Clear</Button>
      </Stack>
    </Box>
  );
}

/** The filters a chart element set that the form does not show (one session, a comparison cell), each removable. */
function ChartFilters({ filters, onChange }: { filters: ScoreFilters; onChange: (filters: ScoreFilters) => void }) {
  const criteriaName = useCriteriaNames();
  const { data: bands } = useScoreBands();
  const bandLabel = (band: string) => bands?.find((b) => b.band === band)?.label ?? band;
  const compared = filters.comparedTo && filters.comparedBand;
  if (!filters.sessionId && !compared) return null;
  return (
    <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1} sx={{ mb: 2 }} data-testid="chart-filters">
      {filters.sessionId && (
        <Chip
          label={`Session ${shortSessionId(filters.sessionId)}`}
          title={filters.sessionId}
          onDelete={() => onChange({ ...filters, sessionId: '' })}
        />
      )}
      {compared && (
        <Chip
          label={`${bandLabel(filters.comparedBand)} under ${filters.comparedTo === 'current' ? 'the current criteria' : criteriaName(filters.comparedTo)}`}
          onDelete={() => onChange({ ...filters, comparedTo: '', comparedBand: '' })}
        />
      )}
    </Stack>
  );
}

function SortHeader({
  column,
  label,
  maxPoints,
  state,
  onSort,
  sx,
}: {
  column: SortColumn;
  label: string;
  /** A dimension's maximum (its rubric's), shown under its name. */
  maxPoints?: number;
  state: ScoresState;
  onSort: (c: SortColumn) => void;
  sx?: object;
}) {
  const active = state.sort === column;
  return (
    <TableCell sx={sx} sortDirection={active ? state.order : false} data-testid={isDimensionSort(column) ? `dimension-column-${column}` : undefined}>
      <TableSortLabel active={active} direction={active ? state.order : 'desc'} onClick={() => onSort(column)}>
        {label}
      </TableSortLabel>
      {maxPoints !== undefined && ' '}
      {maxPoints !== undefined && (
        <Typography variant="caption" color="text.secondary" component="span" display="block">
          of {maxPoints}
        </Typography>
      )}
    </TableCell>
  );
}

function ScoreRow({ row, dimensions }: { row: FleetScore; dimensions: readonly RubricDimension[] }) {
  const facts = row.session_facts;
  return (
    <TableRow data-testid="score-row" data-session-id={row.session_id}>
      <TableCell sx={{ overflowWrap: 'break-word' }}>
        <Link
          component={RouterLink}
          to={`/sessions/${encodeURIComponent(row.session_id)}`}
          data-testid="session-link"
          title={row.session_id}
          sx={{ fontWeight: 500 }}
        >
          {/* one name per session: an upload's task, as on Sessions; else the alert type */}
          {row.title ?? facts?.alert_type ?? `Session ${shortSessionId(row.session_id)}`}
        </Link>
        <div>
          <SessionIdChip sessionId={row.session_id} />
        </div>
        <Typography variant="caption" color="text.secondary" component="div" sx={{ display: { md: 'none' } }}>
          {facts?.agent ? breakable(facts.agent) : '–'} · {when(row.scored_at)}
        </Typography>
      </TableCell>
      <TableCell>
        <ScoreBadge score={row} />
      </TableCell>
      {dimensions.map(({ key }) => (
        <TableCell key={key} sx={wide}>
          {row.score_breakdown?.[key] ?? '–'}
        </TableCell>
      ))}
      <TableCell sx={{ ...wide, overflowWrap: 'break-word' }}>{facts?.agent ? breakable(facts.agent) : '–'}</TableCell>
      <TableCell sx={{ ...wide, overflowWrap: 'break-word' }}>{facts?.alert_type ? breakable(facts.alert_type) : '–'}</TableCell>
      <TableCell sx={wide}>{row.outcome ? <OutcomeChip outcome={row.outcome} /> : '–'}</TableCell>
      <TableCell sx={wide}>{when(row.scored_at)}</TableCell>
      <TableCell sx={wide}>{when(facts?.started_at)}</TableCell>
    </TableRow>
  );
}

/** One click each: a relative time range (kept in the URL as `range`, counted from now), and worst first. */
function QuickChoices({ state, onChange }: { state: ScoresState; onChange: (next: ScoresState) => void }) {
  const worstFirst = state.sort === 'total_score' && state.order === 'asc';
  const setRange = (range: string) =>
    onChange({ ...state, filters: { ...state.filters, range, scoredAfter: range ? '' : state.filters.scoredAfter }, cursors: [] });
  return (
    <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1} alignItems="center" sx={{ mb: 1.5 }}>
      <RangeToggle value={state.filters.range} label="scored within" onChange={setRange} />
      <Button
        size="small"
        variant={worstFirst ? 'contained' : 'outlined'}
        aria-pressed={worstFirst}
        onClick={() => onChange({ ...state, sort: 'total_score', order: 'asc', cursors: [] })}
      >
        Worst first
      </Button>
    </Stack>
  );
}

/** The fleet query as a table: filters, sortable columns, cursor paging and a CSV download, all kept in the URL. */
export function ScoresPage() {
  const [params, setParams] = useSearchParams();
  const asked = stateFromParams(params);
  // the dimensions (columns, sort keys) are the rubric's of the criteria in scope; a dimension sort it lacks sorts by
  // the total, and a dimension sort waits for the rubric rather than ask the API for a key it may refuse
  const rubric = useRubricDimensions(asked.filters.criteria || 'current');
  const state = sortWithin(asked, rubric.dimensions?.map((d) => d.key));
  const waitingForRubric = isDimensionSort(state.sort) && rubric.pending;
  const query = queryFromState(state);
  const urlProblems = Object.entries(problemsOf(state.filters));
  const { data, error, isFetching, refetch } = useFleetScores(query, urlProblems.length === 0 && !waitingForRubric);
  const loading = isFetching || waitingForRubric;
  // without the rubric (it could not be read), the keys the rows carry, in words
  const dimensions = rubric.dimensions ?? dimensionsOf((data?.items ?? []).flatMap((row) => Object.keys(row.score_breakdown ?? {})), undefined);
  const go = (next: ScoresState) => setParams(paramsFromState(next));

  const onSort = (column: SortColumn) =>
    go({ ...state, sort: column, order: state.sort === column && state.order === 'desc' ? 'asc' : 'desc', cursors: [] });
  const filtersKey = paramsFromState({ ...state, cursors: [] }).toString();
  const criteriaNameOf = useCriteriaNames();
  const { data: criteriaUsed = [] } = useCriteriaInUse();
  const inForce = criteriaUsed.find((c) => c.is_current);
  const chosenCriteria = state.filters.criteria || 'current';
  // one truth: the list says which criteria its scores are under
  const scopeText =
    chosenCriteria === 'any'
      ? 'under any criteria'
      : chosenCriteria === 'current'
        ? `under the current criteria${inForce ? ` (${criteriaLabel(inForce)})` : ''}`
        : `under ${criteriaNameOf(chosenCriteria)}`;
  const setFilters = [...paramsFromState({ ...state, sort: 'scored_at', order: 'desc', cursors: [] }).keys()].filter((k) => k !== 'range').length;

  return (
    <>
      <Stack direction="row" alignItems="baseline" justifyContent="space-between" flexWrap="wrap" gap={1}>
        <Typography variant="h5" component="h1" gutterBottom>
          Scores
        </Typography>
        <Stack direction="row" gap={1} flexWrap="wrap">
          <Button component="a" href={fleetScoresCsvUrl(query)} download data-testid="scores-csv">
            Download CSV
          </Button>
          <Button component={RouterLink} to="/export">
            Export training data
          </Button>
        </Stack>
      </Stack>
      <QuickChoices state={state} onChange={go} />
      <Folding id="score-filters" count={setFilters}>
        <ScoreFiltersForm key={filtersKey} filters={state.filters} onApply={(filters) => go({ ...state, filters, cursors: [] })} />
      </Folding>
      <ChartFilters filters={state.filters} onChange={(filters) => go({ ...state, filters, cursors: [] })} />
      {urlProblems.length > 0 && (
        <Alert severity="warning" sx={{ mb: 2 }}>
          Fix the filters to see scores: {urlProblems.map(([, problem]) => problem).join('; ')}.
        </Alert>
      )}
      {data && data.total_items != null && urlProblems.length === 0 && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="scores-total" role="status">
          {data.total_items} {state.filters.latestOnly ? 'session' : 'score'}
          {data.total_items === 1 ? ' matches' : 's match'}
          {state.filters.latestOnly ? ' (each with its latest completed score)' : ''}
          {` ${scopeText}`}
        </Typography>
      )}
      {error && <ErrorState message={`Could not load the scores: ${errorMessage(error)}`} onRetry={() => void refetch()} />}
      {loading && !data && <Loading what="scores" />}
      {data && data.items.length === 0 && (
        <EmptyState title="No scores match">Change or clear the filters to see more.</EmptyState>
      )}
      {data && data.items.length > 0 && (
        <Paper variant="outlined">
          <Refreshing active={loading} what="scores" />
          <TableContainer>
            <Table size="small" aria-label="scores" sx={{ tableLayout: 'fixed', '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell sx={{ width: { md: 300 } }}>Session</TableCell>
                  <SortHeader column="total_score" label="Total" state={state} onSort={onSort} sx={{ width: { xs: 104, md: 120 } }} />
                  {dimensions.map(({ key, label, max_points }) => (
                    <SortHeader key={key} column={key} label={label} maxPoints={rubric.dimensions ? max_points : undefined} state={state} onSort={onSort} sx={wide} />
                  ))}
                  <TableCell sx={wide}>Agent</TableCell>
                  <TableCell sx={wide}>Alert type</TableCell>
                  <TableCell sx={wide}>Root cause</TableCell>
                  <SortHeader column="scored_at" label="Scored" state={state} onSort={onSort} sx={wide} />
                  <SortHeader column="session_started_at" label="Started" state={state} onSort={onSort} sx={wide} />
                </TableRow>
              </TableHead>
              <TableBody aria-busy={loading}>
                {data.items.map((row) => (
                  <ScoreRow key={row.score_id} row={row} dimensions={dimensions} />
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
