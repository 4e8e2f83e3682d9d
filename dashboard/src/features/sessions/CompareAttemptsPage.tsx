// Two attempts of one session side by side: totals and dimensions with their difference, the missing tools each
// named, and the reasoning. Which two lives in the URL (`?a=<score id>&b=<score id>`), so a comparison can be shared.
import {
  Alert,
  Box,
  Breadcrumbs,
  Card,
  CardContent,
  Link,
  MenuItem,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from '@mui/material';
import { Link as RouterLink, useParams, useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import type { SessionScore } from '../../api/generated/schema';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { shortSessionId } from '../../shared/components/SessionId';
import { Markdown } from '../../shared/components/Markdown';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { breakable } from '../../shared/breakable';
import { useCriteriaNames } from '../../shared/criteria';
import { formatDateTime } from '../../shared/time';
import { useSessionScoring } from './queries';

/** The two attempts to show when the URL names none (or one that is not the session's): the score under the current
 * criteria (else the newest completed) and the newest other completed attempt. */
export function defaultPair(attempts: SessionScore[], current: SessionScore | null): [string | null, string | null] {
  const completed = attempts.filter((a) => a.status === 'completed');
  const first = current ?? completed[0] ?? attempts[0] ?? null;
  const second = completed.find((a) => a.score_id !== first?.score_id) ?? attempts.find((a) => a.score_id !== first?.score_id) ?? null;
  return [first?.score_id ?? null, second?.score_id ?? null];
}

const difference = (a: number | null | undefined, b: number | null | undefined) => {
  if (a == null || b == null) return '–';
  const d = b - a;
  return d === 0 ? '0' : `${d > 0 ? '+' : ''}${d}`;
};

function AttemptPicker({
  label,
  value,
  attempts,
  describe,
  onChange,
  testId,
}: {
  label: string;
  value: string;
  attempts: SessionScore[];
  describe: (a: SessionScore) => string;
  onChange: (scoreId: string) => void;
  testId: string;
}) {
  return (
    <TextField
      select
      size="small"
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      sx={{ minWidth: 0 }}
      data-testid={testId}
    >
      {attempts.map((a) => (
        <MenuItem key={a.score_id} value={a.score_id}>
          {describe(a)}
        </MenuItem>
      ))}
    </TextField>
  );
}

type DimensionRow = { key: string; label: string; maxima: number[] };

/** The dimensions of either attempt's rubric, by key: A's in its rubric's order, then B's others; each with its label
 * and maximum (both, when the two rubrics give one key different maxima: then B − A is not taken). */
function dimensionsOf(a: SessionScore, b: SessionScore): DimensionRow[] {
  const rows = new Map<string, DimensionRow>();
  for (const d of [...(a.dimensions ?? []), ...(b.dimensions ?? [])]) {
    const row = rows.get(d.key);
    if (!row) rows.set(d.key, { key: d.key, label: d.label, maxima: [d.max_points] });
    else if (!row.maxima.includes(d.max_points)) row.maxima.push(d.max_points);
  }
  return [...rows.values()];
}

/** The figures of both attempts, row by row, with B minus A. */
function FiguresTable({ a, b, criteriaName }: { a: SessionScore; b: SessionScore; criteriaName: (hash: string) => string }) {
  const rows: [string, React.ReactNode, React.ReactNode, string][] = [
    ['Total', <ScoreBadge key="a" score={a} />, <ScoreBadge key="b" score={b} />, difference(a.total_score, b.total_score)],
    ...dimensionsOf(a, b).map(({ key, label, maxima }): [string, React.ReactNode, React.ReactNode, string] => [
      `${label} (of ${maxima.join(' / ')})`,
      a.score_breakdown?.[key] ?? '–',
      b.score_breakdown?.[key] ?? '–',
      maxima.length === 1 ? difference(a.score_breakdown?.[key], b.score_breakdown?.[key]) : '–',
    ]),
    ['Missing tools', missingByTool(a).size, missingByTool(b).size, difference(missingByTool(a).size, missingByTool(b).size)],
    ['Status', a.status, b.status, ''],
    ['Criteria', criteriaName(a.criteria_hash), criteriaName(b.criteria_hash), ''],
    ['Judge', a.judge.model ?? a.judge.provider ?? '–', b.judge.model ?? b.judge.provider ?? '–', ''],
    ['Scored', formatDateTime(a.scored_at ?? a.requested_at), formatDateTime(b.scored_at ?? b.requested_at), ''],
  ];
  return (
    <Table
      size="small"
      aria-label="The two attempts' figures"
      sx={{ tableLayout: 'fixed', '& td, & th': { px: { xs: 0.5, sm: 2 }, overflowWrap: 'break-word' } }}
    >
      <TableHead>
        <TableRow>
          <TableCell sx={{ width: { xs: '30%', sm: '25%' } }} />
          <TableCell component="th" scope="col">
            A
          </TableCell>
          <TableCell component="th" scope="col">
            B
          </TableCell>
          <TableCell component="th" scope="col" sx={{ width: { xs: 52, sm: 90 } }} align="right">
            B − A
          </TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {rows.map(([name, first, second, delta]) => (
          <TableRow key={name} data-testid="compare-row" data-row={name}>
            <TableCell component="th" scope="row">
              {name}
            </TableCell>
            <TableCell data-testid="compare-a-value">{first}</TableCell>
            <TableCell data-testid="compare-b-value">{second}</TableCell>
            <TableCell align="right">{delta}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The tools an attempt named missing, by the canonical name the API gives each (what the missing-tools analytics
 * count it as), with the spellings the judge wrote for it. */
function missingByTool(score: SessionScore): Map<string, string[]> {
  const tools = new Map<string, string[]>();
  for (const t of score.missing_tools) {
    const spellings = tools.get(t.canonical_name) ?? [];
    if (!spellings.includes(t.tool_name)) spellings.push(t.tool_name);
    tools.set(t.canonical_name, spellings);
  }
  return tools;
}

/** Every tool either attempt named missing, one row per canonical name (two spellings of one tool are one row), the
 * spellings beneath when they differ from it, and which attempt named it. */
function MissingToolsTable({ a, b }: { a: SessionScore; b: SessionScore }) {
  const byA = missingByTool(a);
  const byB = missingByTool(b);
  const inA = new Set(byA.keys());
  const inB = new Set(byB.keys());
  const tools = [...new Set([...inA, ...inB])].sort();
  if (tools.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        Neither attempt named a missing tool.
      </Typography>
    );
  }
  const mark = (named: boolean) => (named ? 'named' : '–');
  return (
    <Table size="small" aria-label="Missing tools named by each attempt" sx={{ tableLayout: 'fixed' }}>
      <TableHead>
        <TableRow>
          <TableCell>Tool</TableCell>
          <TableCell sx={{ width: { xs: 64, sm: 110 } }}>A</TableCell>
          <TableCell sx={{ width: { xs: 64, sm: 110 } }}>B</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {tools.map((tool) => (
          <TableRow key={tool} data-testid="compare-missing-tool" data-tool={tool}>
            <TableCell sx={{ overflowWrap: 'break-word' }}>
              <code>{breakable(tool)}</code>
              <Spellings spellings={[...new Set([...(byA.get(tool) ?? []), ...(byB.get(tool) ?? [])])]} tool={tool} />
            </TableCell>
            <TableCell sx={{ fontWeight: inA.has(tool) && !inB.has(tool) ? 700 : 400 }}>{mark(inA.has(tool))}</TableCell>
            <TableCell sx={{ fontWeight: inB.has(tool) && !inA.has(tool) ? 700 : 400 }}>{mark(inB.has(tool))}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** How the judge wrote a tool, when that is not its canonical name (`kubernetes-server.pods_logs` for `pods_logs`). */
function Spellings({ spellings, tool }: { spellings: string[]; tool: string }) {
  if (spellings.every((s) => s === tool)) return null;
  return (
    <Typography variant="caption" color="text.secondary" component="div" data-testid="compare-missing-tool-spellings">
      as written: {spellings.map((s, i) => (
        <span key={s}>
          {i > 0 && ', '}
          <code>{breakable(s)}</code>
        </span>
      ))}
    </Typography>
  );
}

function Reasoning({ which, score }: { which: string; score: SessionScore }) {
  return (
    <Card variant="outlined" data-testid={`compare-reasoning-${which}`}>
      <CardContent>
        <Typography variant="h6" component="h3">
          Reasoning {which}
        </Typography>
        {score.status === 'completed' ? (
          <Markdown text={score.score_reasoning ?? ''} />
        ) : (
          <Typography variant="body2" color="text.secondary">
            {score.status === 'failed' ? `This attempt failed: ${score.error_message ?? 'no reason was recorded'}` : `This attempt is ${score.status}.`}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}

/** A session's attempts, two at a time. */
export function CompareAttemptsPage() {
  const { sessionId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const scoring = useSessionScoring(sessionId);
  const criteriaName = useCriteriaNames();

  if (scoring.isPending) return <Loading what="the attempts" />;
  if (!scoring.data) {
    return <ErrorState message={`Could not load the attempts: ${errorMessage(scoring.error)}`} onRetry={() => void scoring.refetch()} />;
  }
  const attempts = scoring.data.attempts;
  const known = (id: string | null) => (id && attempts.some((x) => x.score_id === id) ? id : null);
  const [defaultA, defaultB] = defaultPair(attempts, scoring.data.current);
  const aId = known(params.get('a')) ?? defaultA;
  const bId = known(params.get('b')) ?? (defaultB === aId ? defaultA : defaultB);
  const a = attempts.find((x) => x.score_id === aId) ?? null;
  const b = attempts.find((x) => x.score_id === bId) ?? null;
  const describe = (x: SessionScore) =>
    `${formatDateTime(x.scored_at ?? x.requested_at)} · ${x.status === 'completed' ? x.total_score : x.status} · ${criteriaName(x.criteria_hash)}`;
  const choose = (key: 'a' | 'b', scoreId: string) => {
    const next = new URLSearchParams(params);
    next.set('a', aId ?? '');
    next.set('b', bId ?? '');
    next.set(key, scoreId);
    setParams(next, { replace: true });
  };
  const sessionHref = `/sessions/${encodeURIComponent(sessionId)}`;

  return (
    <>
      <Breadcrumbs sx={{ mb: 1 }}>
        <Link component={RouterLink} to="/">
          Sessions
        </Link>
        <Link component={RouterLink} to={sessionHref} title={sessionId}>
          {shortSessionId(sessionId)}
        </Link>
        <Typography color="text.primary">Compare attempts</Typography>
      </Breadcrumbs>
      <Typography variant="h5" component="h1" gutterBottom>
        Compare attempts
      </Typography>
      {attempts.length < 2 ? (
        <EmptyState title={attempts.length === 0 ? 'This session was never scored' : 'This session has only one attempt'}>
          Re-score it on <Link component={RouterLink} to={sessionHref}>its page</Link> to have two attempts to compare.
        </EmptyState>
      ) : (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            {attempts.length} attempts, newest first. Pick any two.
          </Typography>
          {scoring.error && <Alert severity="warning">Could not refresh the attempts: {errorMessage(scoring.error)}</Alert>}
          <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, mb: 2 }}>
            <AttemptPicker label="A" value={aId ?? ''} attempts={attempts} describe={describe} onChange={(id) => choose('a', id)} testId="compare-a" />
            <AttemptPicker label="B" value={bId ?? ''} attempts={attempts} describe={describe} onChange={(id) => choose('b', id)} testId="compare-b" />
          </Box>
          {a && b && (
            <>
              <Card variant="outlined" sx={{ mb: 2 }}>
                <CardContent>
                  <Typography variant="h6" component="h2" gutterBottom>
                    Scores
                  </Typography>
                  <FiguresTable a={a} b={b} criteriaName={criteriaName} />
                </CardContent>
              </Card>
              <Card variant="outlined" sx={{ mb: 2 }}>
                <CardContent>
                  <Typography variant="h6" component="h2" gutterBottom>
                    Missing tools
                  </Typography>
                  <MissingToolsTable a={a} b={b} />
                </CardContent>
              </Card>
              <Typography variant="h6" component="h2" gutterBottom>
                Reasoning
              </Typography>
              <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' } }}>
                <Reasoning which="A" score={a} />
                <Reasoning which="B" score={b} />
              </Box>
            </>
          )}
        </>
      )}
    </>
  );
}
