import {
  Box,
  Button,
  Chip,
  FormControl,
  FormControlLabel,
  InputLabel,
  Link,
  NativeSelect,
  OutlinedInput,
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
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { SessionListItem, SessionListPage } from '../../api/generated/schema';
import { CursorPager } from '../../shared/components/CursorPager';
import { NumberedPager } from '../../shared/components/NumberedPager';
import { LaterAttempt, ScoreBadge } from '../../shared/components/ScoreBadge';
import { useCriteriaNames } from '../../shared/criteria';
import { SessionIdChip, shortSessionId } from '../../shared/components/SessionId';
import { EmptyState, ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { bandColours, useScoreBands } from '../../shared/scoreBands';
import {
  DEFAULT_STATE,
  PAGE_SIZES,
  type Scored,
  type SessionSort,
  type SessionsState,
  pagesByCursor,
  paramsFromState,
  queryFromState,
  restart,
  stateFromParams,
} from './urlState';
import { useSessionPage } from './queries';
import { formatDateTime } from '../../shared/time';
import { breakable } from '../../shared/breakable';
import { WRAPPING } from '../../shared/components/OutcomeChip';
import { Folding } from '../../shared/components/Folding';
import { RangeToggle } from '../../shared/components/RangeToggle';

const wide = { display: { xs: 'none', md: 'table-cell' } };
const when = formatDateTime;

const SORT_LABELS: Record<SessionSort, string> = {
  source: 'Newest first',
  score_desc: 'Score: high to low',
  score_asc: 'Score: low to high',
};

/** A day field (a native date input, UTC days), in the same outlined style as the sort. */
function DayField({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (day: string) => void }) {
  return (
    <FormControl size="small" sx={{ width: 170 }}>
      <InputLabel htmlFor={id} shrink>
        {label}
      </InputLabel>
      <OutlinedInput
        id={id}
        type="date"
        label={label}
        notched
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </FormControl>
  );
}

/** When the sessions started: a preset (counted from now at each request; a shared URL keeps meaning "the last 7
 * days"), or a from and a before day (UTC). */
function StartedWithin({ state, onChange }: { state: SessionsState; onChange: (patch: Partial<SessionsState>) => void }) {
  return (
    <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1.5} alignItems="center" sx={{ mt: 1 }}>
      <RangeToggle
        value={state.range}
        label="started within"
        onChange={(range) => onChange({ range, startedFrom: '' })}
      />
      <DayField
        id="sessions-started-from"
        label="Started from (UTC)"
        value={state.startedFrom}
        onChange={(startedFrom) => onChange({ startedFrom, range: '' })}
      />
      <DayField
        id="sessions-started-before"
        label="Started before (UTC)"
        value={state.startedBefore}
        onChange={(startedBefore) => onChange({ startedBefore })}
      />
    </Stack>
  );
}

/** The filters above the list: all / scored / unscored, band chips, current criteria only, the sort, and when the
 * sessions started. Each change goes straight to the URL (and back to the first page). */
function SessionFilters({
  state,
  filtered,
  onChange,
}: {
  state: SessionsState;
  filtered: boolean;
  onChange: (next: SessionsState) => void;
}) {
  const { data: bands } = useScoreBands();
  const change = (patch: Partial<SessionsState>) => onChange(restart({ ...state, ...patch }));
  const toggleBand = (band: string) =>
    change({ bands: state.bands.includes(band) ? state.bands.filter((b) => b !== band) : [...state.bands, band], scored: 'scored' });
  return (
    <Box component="section" aria-label="session filters" sx={{ mb: 2 }}>
      <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1.5} alignItems="center">
        <ToggleButtonGroup
          size="small"
          exclusive
          value={state.scored}
          aria-label="scored or not"
          onChange={(_, value: Scored | null) => value && change({ scored: value })}
        >
          <ToggleButton value="any">All</ToggleButton>
          <ToggleButton value="scored">Scored</ToggleButton>
          <ToggleButton value="unscored">Unscored</ToggleButton>
        </ToggleButtonGroup>
        {/* a native select: MUI's Select would add its menu's JavaScript to the first page */}
        <FormControl size="small" sx={{ minWidth: 170 }} disabled={state.scored === 'unscored'}>
          <InputLabel htmlFor="sessions-sort" shrink>
            Sort
          </InputLabel>
          <NativeSelect
            value={state.sort}
            onChange={(e) => change({ sort: e.target.value as SessionSort })}
            input={<OutlinedInput label="Sort" notched id="sessions-sort" />}
          >
            {(Object.keys(SORT_LABELS) as SessionSort[]).map((sort) => (
              <option key={sort} value={sort}>
                {SORT_LABELS[sort]}
              </option>
            ))}
          </NativeSelect>
        </FormControl>
        <FormControlLabel
          control={<Switch checked={state.currentOnly} onChange={(e) => change({ currentOnly: e.target.checked })} />}
          label="Current criteria only"
        />
        {filtered && (
          <Button size="small" onClick={() => onChange({ ...DEFAULT_STATE, pageSize: state.pageSize })}>
            Clear
          </Button>
        )}
      </Stack>
      <Stack direction="row" useFlexGap flexWrap="wrap" spacing={1} sx={{ mt: 1 }} role="group" aria-label="bands">
        {(bands ?? []).map((band) => {
          const selected = state.bands.includes(band.band);
          const colours = bandColours(band.band);
          return (
            <Chip
              key={band.band}
              size="small"
              label={`${band.label} ${band.min_score}-${band.max_score}`}
              aria-pressed={selected}
              data-testid="band-chip"
              data-band={band.band}
              disabled={state.scored === 'unscored'}
              onClick={() => toggleBand(band.band)}
              variant={selected ? 'filled' : 'outlined'}
              sx={selected ? { bgcolor: colours.background, color: colours.text, '&:hover': { bgcolor: colours.background } } : undefined}
            />
          );
        })}
      </Stack>
      <StartedWithin state={state} onChange={change} />
    </Box>
  );
}

/** An unscored or dated list's paging: cursors (the API scans the source and cannot number its pages), and a note
 * when the page stopped at the limit of source pages one request reads. */
function UnscoredPager({
  state,
  page,
  loading,
  onChange,
}: {
  state: SessionsState;
  page: SessionListPage;
  loading: boolean;
  onChange: (next: SessionsState) => void;
}) {
  return (
    <CursorPager cursors={state.cursors} nextCursor={page.next_cursor} loading={loading} onCursors={(cursors) => onChange({ ...state, cursors })}>
      {page.scan?.limit_reached && (
        <Typography variant="body2" color="text.secondary" data-testid="scan-note">
          Stopped after {page.scan.source_pages_read} source pages; more may follow.
        </Typography>
      )}
    </CursorPager>
  );
}

/** Which criteria the Score column is under: one list, one truth (the Scores page and a session's page agree). */
function CriteriaScope({ criteriaHash }: { criteriaHash: string | null }) {
  const criteriaName = useCriteriaNames();
  return (
    <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }} data-testid="criteria-scope">
      {criteriaHash
        ? `Scores under the current criteria (${criteriaName(criteriaHash)}): each session's latest completed score.`
        : "Each session's latest completed score under any criteria; * marks one under criteria other than the current."}
    </Typography>
  );
}

const sessionPath = (sessionId: string) => `/sessions/${encodeURIComponent(sessionId)}`;

/** One session: its title is a link (open it in a new tab, copy its address), its short id can be copied; a click
 * anywhere else on the row opens it too. */
function SessionRow({ item, onOpen }: { item: SessionListItem; onOpen: () => void }) {
  const title = item.title ?? item.alert_type;
  return (
    <TableRow
      hover
      sx={{ cursor: 'pointer' }}
      data-testid="session-row"
      data-session-id={item.session_id}
      onClick={(event) => {
        if (!(event.target as HTMLElement).closest('a, button')) onOpen();
      }}
    >
      <TableCell sx={{ overflowWrap: 'break-word' }}>
        <Link
          component={RouterLink}
          to={sessionPath(item.session_id)}
          data-testid="session-link"
          title={title ?? item.session_id}
          sx={{ fontWeight: 500, display: '-webkit-box', WebkitLineClamp: 2, WebkitBoxOrient: 'vertical', overflow: 'hidden' }}
        >
          {title ?? shortSessionId(item.session_id)}
        </Link>
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', columnGap: 1 }}>
          <SessionIdChip sessionId={item.session_id} />
          {item.alert_type && item.alert_type !== title && (
            <Typography variant="caption" color="text.secondary">
              {item.alert_type}
            </Typography>
          )}
          <Typography variant="caption" color="text.secondary" sx={{ display: { md: 'none' } }}>
            {when(item.started_at)}
          </Typography>
        </Box>
      </TableCell>
      <TableCell>
        <Chip
          size="small"
          variant="outlined"
          label={item.status}
          data-testid="session-status"
          sx={WRAPPING}
          color={item.status === 'completed' ? 'success' : item.status === 'failed' ? 'error' : 'default'}
        />
      </TableCell>
      <TableCell sx={{ ...wide, overflowWrap: 'break-word' }}>{item.agent_type ? breakable(item.agent_type) : '–'}</TableCell>
      <TableCell sx={{ ...wide, overflowWrap: 'break-word' }}>{item.author ?? '–'}</TableCell>
      <TableCell sx={wide}>{when(item.started_at)}</TableCell>
      <TableCell>
        <ScoreBadge score={item.score} />
        <LaterAttempt status={item.score?.later_attempt_status} />
      </TableCell>
    </TableRow>
  );
}

/** Sessions with their latest score, newest first; filtered to the scored (by band, sorted by score) or the unscored
 * ones, the state in the URL. A row opens the session; its title is a link. */
export function SessionsPage() {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const state = stateFromParams(params);
  const { data, error, isFetching: loading, refetch } = useSessionPage(queryFromState(state));
  const go = (next: SessionsState) => setParams(paramsFromState(next));
  const unscored = state.scored === 'unscored';
  const byCursor = pagesByCursor(state);
  // Any filter or sort set (paging aside): what tells "no sessions at all" from "none match".
  const setFilters = paramsFromState({ ...state, page: 1, pageSize: DEFAULT_STATE.pageSize, cursors: [] });
  const filtered = setFilters.size > 0;
  const onScoreSort = () => go(restart({ ...state, sort: state.sort === 'score_desc' ? 'score_asc' : 'score_desc' }));
  const scoreSorted = state.sort !== 'source';

  return (
    <>
      <Typography variant="h5" component="h1" gutterBottom>
        Sessions
      </Typography>
      <Folding id="session-filters" count={setFilters.size}>
        <SessionFilters state={state} filtered={filtered} onChange={go} />
      </Folding>
      {error && (
        <ErrorState message={`Could not load the sessions: ${errorMessage(error)}`} onRetry={() => void refetch()} />
      )}
      {loading && !data && <Loading what="sessions" />}
      {data && data.items.length === 0 && !filtered && (
        <EmptyState title="No sessions yet">The session source has no sessions to show.</EmptyState>
      )}
      {data && data.items.length === 0 && filtered && (
        <>
          <EmptyState title="No sessions match">
            {data.next_cursor ? 'None in this stretch of the source; Next reads on.' : 'Change or clear the filters to see more.'}
          </EmptyState>
          {byCursor && <UnscoredPager state={state} page={data} loading={loading} onChange={go} />}
        </>
      )}
      {data && <CriteriaScope criteriaHash={data.criteria_hash ?? null} />}
      {data && data.items.length > 0 && (
        <Paper variant="outlined">
          <Refreshing active={loading} what="sessions" />
          <TableContainer>
            {/* A fixed layout with the status and score columns sized: at phone width the session's title wraps instead
                of pushing the Score column out of view. */}
            <Table size="small" aria-label="sessions" sx={{ tableLayout: 'fixed', '& .MuiTableCell-root': { px: { xs: 1, sm: 2 } } }}>
              <TableHead>
                <TableRow>
                  <TableCell>Session</TableCell>
                  <TableCell sx={{ width: { xs: 104, md: 130 } }}>Status</TableCell>
                  <TableCell sx={{ ...wide, width: '16%' }}>Agent</TableCell>
                  <TableCell sx={{ ...wide, width: '14%' }}>Submitted by</TableCell>
                  <TableCell sx={{ ...wide, width: 190 }}>Time</TableCell>
                  <TableCell
                    sx={{ width: { xs: 104, md: 130 } }}
                    sortDirection={scoreSorted ? (state.sort === 'score_asc' ? 'asc' : 'desc') : false}
                  >
                    {unscored ? (
                      'Score'
                    ) : (
                      <TableSortLabel
                        active={scoreSorted}
                        direction={state.sort === 'score_asc' ? 'asc' : 'desc'}
                        onClick={onScoreSort}
                      >
                        Score
                      </TableSortLabel>
                    )}
                  </TableCell>
                </TableRow>
              </TableHead>
              <TableBody aria-busy={loading}>
                {data.items.map((item) => (
                  <SessionRow key={item.session_id} item={item} onOpen={() => navigate(sessionPath(item.session_id))} />
                ))}
              </TableBody>
            </Table>
          </TableContainer>
          {byCursor ? (
            <UnscoredPager state={state} page={data} loading={loading} onChange={go} />
          ) : (
            <NumberedPager
              count={data.total_items ?? null}
              page={state.page}
              pageSize={state.pageSize}
              pageSizes={PAGE_SIZES}
              onPage={(next) => go({ ...state, page: next })}
              onPageSize={(size) => go(restart({ ...state, pageSize: size }))}
            />
          )}
        </Paper>
      )}
    </>
  );
}
