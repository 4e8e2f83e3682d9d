import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  InputLabel,
  Link,
  MenuItem,
  Radio,
  RadioGroup,
  Select,
  TextField,
  Typography,
} from '@mui/material';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { whichValues, type DryRunResult, type Which } from '../../api/generated/schema';
import { type RunDraft, batchUnavailable, useCurrentJudge, useEstimateRun, useStartRun } from './queries';
import { WHICH_LABELS, formatCost, formatDuration, formatTokens, skipReason } from './format';
import { useBlockedReason } from '../../shared/useMe';

/** The form's fields as typed (strings), before they become a run request. */
export interface RunForm {
  which: Which;
  score_below: string;
  statuses: string;
  submitted_after: string;
  submitted_before: string;
  agent: string;
  alert_type: string;
  session_ids: string;
  max_sessions: string;
  max_cost_usd: string;
  mode: 'online' | 'batch';
  name: string;
}

const DEFAULT_FORM: RunForm = {
  which: 'unscored',
  score_below: '60',
  statuses: '',
  submitted_after: '',
  submitted_before: '',
  agent: '',
  alert_type: '',
  session_ids: '',
  max_sessions: '100',
  max_cost_usd: '',
  mode: 'online',
  name: '',
};

/** The form prefilled from the URL (`/runs/new?which=not_current_criteria` is the analytics page's re-score action). */
export function formFromParams(params: URLSearchParams): RunForm {
  const form = { ...DEFAULT_FORM };
  const which = params.get('which');
  if (which && (whichValues as readonly string[]).includes(which)) form.which = which as Which;
  for (const key of ['score_below', 'agent', 'alert_type', 'max_sessions', 'max_cost_usd', 'name'] as const) {
    const value = params.get(key);
    if (value !== null) form[key] = value;
  }
  return form;
}

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
const optional = (text: string) => (text.trim() ? text.trim() : null);
/** A `datetime-local` value (the browser's local time) as ISO 8601 with its offset. */
const isoOrNull = (local: string) => (local ? new Date(local).toISOString() : null);

/** The run request the form describes, or what is wrong with it. */
export function draftFromForm(form: RunForm): { draft: RunDraft } | { problem: string } {
  const maxSessions = Number(form.max_sessions);
  if (!Number.isInteger(maxSessions) || maxSessions < 1) return { problem: 'Max sessions must be a whole number, at least 1.' };
  const maxCost = form.max_cost_usd.trim() ? Number(form.max_cost_usd) : null;
  if (maxCost !== null && !(maxCost > 0)) return { problem: 'Max cost must be a positive number of US dollars, or empty.' };
  const scoreBelow = Number(form.score_below);
  if (form.which === 'score_below' && !(Number.isInteger(scoreBelow) && scoreBelow >= 1 && scoreBelow <= 100)) {
    return { problem: 'Score below must be a whole number from 1 to 100.' };
  }
  const ids = list(form.session_ids);
  const statuses = list(form.statuses);
  return {
    draft: {
      selection: {
        which: form.which,
        score_below: form.which === 'score_below' ? scoreBelow : null,
        session_ids: ids.length ? ids : null,
        statuses: statuses.length ? statuses : null,
        submitted_after: isoOrNull(form.submitted_after),
        submitted_before: isoOrNull(form.submitted_before),
        agent: optional(form.agent),
        alert_type: optional(form.alert_type),
      },
      max_sessions: maxSessions,
      max_cost_usd: maxCost,
      mode: form.mode,
      name: optional(form.name),
    },
  };
}

/** A new run in two steps: the dry run's estimate, then confirm to start it. */
export function RunFormPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [form, setForm] = useState<RunForm>(() => formFromParams(params));
  const [problem, setProblem] = useState<string | null>(null);
  const estimate = useEstimateRun();
  const start = useStartRun();
  const judge = useCurrentJudge();
  const noBatch = batchUnavailable(judge.data?.llm_provider);
  // a URL or an earlier choice cannot keep a mode the judge refuses
  const mode = noBatch ? 'online' : form.mode;
  const built = draftFromForm({ ...form, mode });
  const blocked = useBlockedReason('startRun');

  const change = <K extends keyof RunForm>(key: K, value: RunForm[K]) => {
    setForm((f) => ({ ...f, [key]: value }));
    // the estimate shown must be the one of the request that would start
    estimate.reset();
    start.reset();
  };
  const text = (key: keyof RunForm) => ({
    value: form[key],
    onChange: (e: { target: { value: string } }) => change(key, e.target.value as never),
  });

  const onEstimate = (e: FormEvent) => {
    e.preventDefault();
    if ('problem' in built) {
      setProblem(built.problem);
      return;
    }
    setProblem(null);
    estimate.mutate(built.draft);
  };
  const onStart = () => {
    if ('draft' in built) start.mutate(built.draft, { onSuccess: (run) => navigate(`/runs/${run.run_id}`) });
  };

  return (
    <>
      <Typography variant="h5" component="h1" gutterBottom>
        New scoring run
      </Typography>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        First see what the run would select and cost (nothing is stored or queued), then confirm to start it.
      </Typography>
      {blocked && (
        <Alert severity="info" sx={{ mb: 2 }}>
          {blocked}
        </Alert>
      )}
      <Card variant="outlined">
        <CardContent component="form" onSubmit={onEstimate} aria-label="run request" noValidate>
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
            <FormControl size="small">
              <InputLabel id="which-label">Sessions</InputLabel>
              <Select
                labelId="which-label"
                label="Sessions"
                value={form.which}
                onChange={(e) => change('which', e.target.value as Which)}
                data-testid="which"
              >
                {whichValues.map((w) => (
                  <MenuItem key={w} value={w}>
                    {WHICH_LABELS[w]}
                  </MenuItem>
                ))}
              </Select>
            </FormControl>
            {form.which === 'score_below' ? (
              <TextField size="small" label="Score below" type="number" slotProps={{ htmlInput: { min: 1, max: 100 } }} {...text('score_below')} />
            ) : (
              <Box sx={{ display: { xs: 'none', md: 'block' } }} />
            )}
            <TextField size="small" label="Agent" helperText="exact agent type; empty: any" {...text('agent')} />
            <TextField size="small" label="Alert type" helperText="exact alert type; empty: any" {...text('alert_type')} />
            <TextField
              size="small"
              label="Session statuses"
              helperText="comma-separated; empty: the configured scorable statuses"
              {...text('statuses')}
            />
            <TextField
              size="small"
              label="Session ids"
              helperText="only these sessions (at most 100), separated by commas or new lines"
              multiline
              maxRows={4}
              {...text('session_ids')}
            />
            <TextField
              size="small"
              label="Submitted after"
              type="datetime-local"
              slotProps={{ inputLabel: { shrink: true } }}
              {...text('submitted_after')}
            />
            <TextField
              size="small"
              label="Submitted before"
              type="datetime-local"
              slotProps={{ inputLabel: { shrink: true } }}
              {...text('submitted_before')}
            />
            <TextField
              size="small"
              label="Max sessions"
              type="number"
              required
              helperText="the run scores at most this many"
              slotProps={{ htmlInput: { min: 1 } }}
              {...text('max_sessions')}
            />
            <TextField
              size="small"
              label="Max cost (USD)"
              type="number"
              helperText="stop queueing before the cost would pass this; empty: no limit"
              slotProps={{ htmlInput: { min: 0, step: 'any' } }}
              {...text('max_cost_usd')}
            />
            <TextField size="small" label="Name" helperText="shown in the list; empty: a default name" {...text('name')} />
            <FormControl>
              <FormLabel id="mode-label">Mode</FormLabel>
              <RadioGroup
                row
                aria-labelledby="mode-label"
                aria-describedby={noBatch ? 'mode-help' : undefined}
                value={mode}
                onChange={(e) => change('mode', e.target.value as RunForm['mode'])}
              >
                <FormControlLabel value="online" control={<Radio size="small" />} label="Online" />
                <FormControlLabel
                  value="batch"
                  disabled={Boolean(noBatch)}
                  control={<Radio size="small" />}
                  label="Batch (half price, within 24 h)"
                />
              </RadioGroup>
              {noBatch && (
                <FormHelperText id="mode-help" data-testid="batch-unavailable">
                  {noBatch}
                </FormHelperText>
              )}
            </FormControl>
          </Box>
          {problem && (
            <Alert severity="warning" sx={{ mt: 2 }}>
              {problem}
            </Alert>
          )}
          {estimate.error && (
            <Alert severity="error" sx={{ mt: 2 }}>
              Could not estimate the run: {errorMessage(estimate.error)}
            </Alert>
          )}
          <Box sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap' }}>
            <Button type="submit" variant="contained" disabled={estimate.isPending || Boolean(blocked)}>
              {estimate.isPending ? 'Estimating…' : 'Estimate'}
            </Button>
            <Button component={RouterLink} to="/runs">
              Back to runs
            </Button>
          </Box>
        </CardContent>
      </Card>
      {estimate.data && (
        <EstimateCard
          estimate={estimate.data}
          starting={start.isPending}
          error={start.error ? errorMessage(start.error) : null}
          onStart={onStart}
          onChange={() => estimate.reset()}
        />
      )}
    </>
  );
}

function Figure({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography variant="h6" component="div" data-testid={testId}>
        {value}
      </Typography>
    </Box>
  );
}

/** The dry run's answer, and the confirm step. */
function EstimateCard({
  estimate,
  starting,
  error,
  onStart,
  onChange,
}: {
  estimate: DryRunResult;
  starting: boolean;
  error: string | null;
  onStart: () => void;
  onChange: () => void;
}) {
  const e = estimate.estimate;
  const n = estimate.sessions_selected;
  const skipped = Object.entries(estimate.skipped_by_reason);
  // On a phone the estimate lands below the long form: bring it into view when it arrives.
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    card.current?.scrollIntoView?.({ block: 'start' });
  }, [estimate]);
  return (
    <Card ref={card} variant="outlined" sx={{ mt: 2 }} data-testid="run-estimate" component="section" aria-labelledby="estimate-title">
      <CardContent>
        <Typography variant="h6" component="h2" id="estimate-title">
          Estimate
        </Typography>
        <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr 1fr', md: 'repeat(5, 1fr)' }, my: 1 }}>
          <Figure label="Sessions selected" value={String(n)} testId="estimate-selected" />
          <Figure label="Skipped" value={String(estimate.sessions_skipped)} testId="estimate-skipped" />
          <Figure label="Estimated cost" value={formatCost(e.estimated_cost_usd)} testId="estimate-cost" />
          <Figure label="Estimated duration" value={formatDuration(e.estimated_duration_seconds)} testId="estimate-duration" />
          <Figure
            label="Tokens (input / output)"
            value={`${formatTokens(e.estimated_input_tokens)} / ${formatTokens(e.estimated_output_tokens)}`}
            testId="estimate-tokens"
          />
        </Box>
        <Typography variant="body2" color="text.secondary">
          {estimate.sessions_read} session{estimate.sessions_read === 1 ? '' : 's'} read from the source.
          {estimate.stop_reason && ` The selection stops early: ${skipReason(estimate.stop_reason)}.`}
          {e.estimated_cost_usd === null && ' The judge model has no price in the pricing table, so the cost is unknown.'}
        </Typography>
        {skipped.length > 0 && (
          <Box component="ul" sx={{ my: 1, pl: 3 }} data-testid="estimate-skipped-reasons">
            {skipped.map(([reason, count]) => (
              <li key={reason}>
                <Typography variant="body2">
                  {count} skipped: {skipReason(reason)}
                </Typography>
              </li>
            ))}
          </Box>
        )}
        {estimate.sample_session_ids.length > 0 && (
          <>
            <Typography variant="subtitle2" component="h3" sx={{ mt: 1 }}>
              Sample of the selected sessions
            </Typography>
            <Box component="ul" sx={{ my: 0.5, pl: 3 }}>
              {estimate.sample_session_ids.map((id) => (
                <li key={id}>
                  <Link component={RouterLink} to={`/sessions/${encodeURIComponent(id)}`} sx={{ overflowWrap: 'anywhere' }}>
                    {id}
                  </Link>
                </li>
              ))}
            </Box>
          </>
        )}
        <Typography variant="caption" color="text.secondary" component="p" sx={{ mt: 1 }}>
          {e.method}
        </Typography>
        {error && (
          <Alert severity="error" sx={{ mt: 2 }}>
            Could not start the run: {error}
          </Alert>
        )}
        <Box sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap', alignItems: 'center' }}>
          {n === 0 ? (
            <Typography variant="body2">Nothing to score with this selection.</Typography>
          ) : (
            <Button variant="contained" color="primary" onClick={onStart} disabled={starting}>
              {starting ? 'Starting…' : `Start run of ${n} session${n === 1 ? '' : 's'}`}
            </Button>
          )}
          <Button onClick={onChange}>Change the request</Button>
        </Box>
      </CardContent>
    </Card>
  );
}
