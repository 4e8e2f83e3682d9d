import { Alert, Box, Breadcrumbs, Button, Card, CardContent, Chip, Link, List, ListItem, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { Link as RouterLink, useParams, useSearchParams } from 'react-router-dom';
import { ApiError, errorMessage } from '../../api/client';
import type { ScoreStatus, SessionScore } from '../../api/generated/schema';
import { LaterAttempt, ScoreBadge } from '../../shared/components/ScoreBadge';
import { SessionIdChip } from '../../shared/components/SessionId';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { useCriteriaInUse, useCriteriaNames } from '../../shared/criteria';
import { isActive } from '../../shared/scoreStatus';
import { SessionLabelsPanel } from '../quality/LabelForm';
import { ConversationView } from './ConversationView';
import { useRequestScore, useSession, useSessionScoring } from './queries';
import { ScoreDetailView } from './ScoreDetailView';
import { ScoreSessionButton } from './ScoreSessionButton';
import { formatDateTime } from '../../shared/time';

type View = 'score' | 'conversation';

const when = formatDateTime;

/** The latest completed score under each criteria other than the current one, newest first. */
function otherCriteriaScores(attempts: SessionScore[]): SessionScore[] {
  const latest = new Map<string, SessionScore>();
  for (const attempt of attempts) {
    if (attempt.is_current_criteria || attempt.status !== 'completed' || latest.has(attempt.criteria_hash)) continue;
    latest.set(attempt.criteria_hash, attempt);
  }
  return [...latest.values()];
}

/** The scores this session has under criteria other than the current one, each named: they are not the session's
 * score (the Scores page and the analytics count the current criteria's), but they are kept and compared. */
function OtherCriteriaCard({ scores, criteriaName }: { scores: SessionScore[]; criteriaName: (hash: string) => string }) {
  return (
    <Card variant="outlined" sx={{ mb: 2 }} data-testid="other-criteria">
      <CardContent>
        <Typography variant="h6" component="h2">
          Under other criteria
        </Typography>
        <List dense disablePadding>
          {scores.map((s) => (
            <ListItem key={s.score_id} disableGutters sx={{ gap: 1, flexWrap: 'wrap' }} data-testid="other-criteria-score">
              <ScoreBadge score={s} />
              <Typography variant="body2">
                <strong>{criteriaName(s.criteria_hash)}</strong> · scored {when(s.scored_at)}
              </Typography>
            </ListItem>
          ))}
        </List>
      </CardContent>
    </Card>
  );
}

/** What is known to be wrong with the id: the page offers only what can work (a search, the lists). */
function NotFound({ sessionId }: { sessionId: string }) {
  return (
    <Card variant="outlined" data-testid="session-not-found">
      <CardContent>
        <Typography variant="h5" component="h1" gutterBottom>
          No session with this id
        </Typography>
        <Typography variant="body1" sx={{ overflowWrap: 'anywhere' }}>
          The session source does not know <code>{sessionId}</code>, and no score was ever stored for it. Check the id,
          or find the session with the search in the bar above (by id, agent or alert).
        </Typography>
        <Box sx={{ display: 'flex', gap: 1, mt: 2, flexWrap: 'wrap' }}>
          <Button variant="contained" component={RouterLink} to="/">
            All sessions
          </Button>
          <Button component={RouterLink} to="/scores">
            Scores
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
}

/** One session: its conversation, or its score (the current criteria's first) with Score Session and the labels. */
export function SessionDetailPage() {
  const { sessionId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const view: View = params.get('view') === 'conversation' ? 'conversation' : 'score';
  const sessionQuery = useSession(sessionId);
  const scoringQuery = useSessionScoring(sessionId);
  const request = useRequestScore(sessionId);
  const criteriaName = useCriteriaNames();
  const { data: criteria = [] } = useCriteriaInUse();

  const session = sessionQuery.data;
  const scoring = scoringQuery.data;
  const unknownAtSource = sessionQuery.error instanceof ApiError && sessionQuery.error.status === 404;
  const sessionFailure = sessionQuery.error && !unknownAtSource ? errorMessage(sessionQuery.error) : null;
  const scoringFailure = scoring === undefined && scoringQuery.error ? errorMessage(scoringQuery.error) : null;
  const retry = () => {
    void sessionQuery.refetch();
    void scoringQuery.refetch();
  };

  if (sessionQuery.isPending || scoringQuery.isPending) return <Loading what="the session" />;
  if (scoringFailure && sessionFailure) {
    // Neither answer came: nothing on this page can work until the API answers again.
    return <ErrorState message={`Could not reach the scoring API: ${scoringFailure}`} onRetry={retry} />;
  }
  const attempts = scoring?.attempts ?? [];
  if (unknownAtSource && scoring && attempts.length === 0) return <NotFound sessionId={sessionId} />;

  const current = scoring?.current ?? null;
  const latest = scoring?.latest ?? null;
  const others = otherCriteriaScores(attempts);
  const inForce = criteria.find((c) => c.is_current);
  const currentName = inForce ? criteriaName(inForce.criteria_hash) : null;
  // The session can be scored only when its source has it, finished.
  const scorable = Boolean(session) && session?.status === 'completed';
  const notScorable = session && session.status !== 'completed' ? `This session is ${session.status}; only completed sessions can be scored.` : null;
  // A failed poll keeps the last answer (and polling goes on): say so instead of hiding it.
  const requestError = request.error
    ? errorMessage(request.error)
    : scoringQuery.error && isActive(latest?.status)
      ? `could not check the scoring progress: ${errorMessage(scoringQuery.error)}`
      : null;
  const title = session?.title ?? session?.alert_type ?? latest?.session_facts?.alert_type ?? 'Session';
  // A completed score under the current criteria stays the session's whatever came after it: a later attempt that
  // was cancelled (with its run) or failed is a state beside it, and the button still offers Re-score.
  const buttonStatus: ScoreStatus | null =
    latest && isActive(latest.status) ? latest.status : current ? 'completed' : (latest?.status ?? null);
  const laterState = current && latest && latest.score_id !== current.score_id ? latest.status : null;

  return (
    <>
      <Breadcrumbs sx={{ mb: 1 }}>
        <Link component={RouterLink} to="/">
          Sessions
        </Link>
        <Typography color="text.primary" sx={{ overflowWrap: 'anywhere' }}>
          {sessionId}
        </Typography>
      </Breadcrumbs>
      <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1.5, mb: 2 }}>
        <Typography variant="h5" component="h1" sx={{ overflowWrap: 'anywhere', minWidth: 0 }}>
          {title}
        </Typography>
        <SessionIdChip sessionId={sessionId} />
        {session && <Chip size="small" variant="outlined" label={session.status} />}
        {scoring && <ScoreBadge score={current} size="medium" />}
        {scoring && <LaterAttempt status={laterState} />}
        {session && (
          <Typography variant="body2" color="text.secondary">
            {session.alert_type && session.alert_type !== title ? `${session.alert_type} · ` : ''}
            {session.agent_type ?? 'unknown agent'} · submitted by {session.author ?? 'unknown'} ·{' '}
            {session.recording_author ? `recorded by ${session.recording_author} · ` : ''}
            {session.started_at ? when(session.started_at) : 'no start time'}
          </Typography>
        )}
        <Box sx={{ flexGrow: 1 }} />
        {session && (
          <ToggleButtonGroup
            size="small"
            exclusive
            value={view}
            onChange={(_, next: View | null) => next && setParams({ view: next })}
            aria-label="view"
          >
            <ToggleButton value="conversation">Conversation</ToggleButton>
            <ToggleButton value="score">Score</ToggleButton>
          </ToggleButtonGroup>
        )}
      </Box>

      {sessionFailure && <ErrorState message={`Could not load the session: ${sessionFailure}`} onRetry={retry} />}
      {unknownAtSource && (
        <Alert severity="info" sx={{ mb: 2 }} data-testid="not-at-source">
          The session source no longer has this session: its scores are kept, but it cannot be scored again or read.
        </Alert>
      )}

      {view === 'conversation' && session && <ConversationView session={session} />}

      {(view === 'score' || !session) && (
        <>
          {scoringFailure && <ErrorState message={`Could not load the scores: ${scoringFailure}`} onRetry={retry} />}
          {scoring && (
            <>
              {(scorable || notScorable) && (
                <Box sx={{ mb: 2 }}>
                  <ScoreSessionButton
                    status={buttonStatus}
                    submitting={request.isPending}
                    error={requestError ?? (buttonStatus === 'failed' ? latest?.error_message : null)}
                    disabledReason={notScorable}
                    onScore={(force) => request.mutate(force)}
                  />
                </Box>
              )}
              {current ? (
                <>
                  <ScoreDetailView
                    score={current}
                    alert={session?.alert}
                    finalAnalysis={session?.final_analysis}
                    history={attempts}
                    criteriaName={criteriaName}
                  />
                  {others.length > 0 && (
                    <Box sx={{ mt: 2 }}>
                      <OtherCriteriaCard scores={others} criteriaName={criteriaName} />
                    </Box>
                  )}
                </>
              ) : (
                <>
                  <EmptyState title={currentName ? `Not scored under the current criteria (${currentName})` : 'Not scored yet'}>
                    {scorable ? 'Score Session asks the judge to grade this investigation; the critique appears here.' : null}
                  </EmptyState>
                  {others.some((o) => o.score_id !== latest?.score_id) && <OtherCriteriaCard scores={others} criteriaName={criteriaName} />}
                  {latest && <ScoreDetailView score={latest} history={attempts} criteriaName={criteriaName} />}
                </>
              )}
              {/* the verdict first; labelling and the known root cause below it */}
              <Box component="section" aria-label="labelling" sx={{ mt: 2 }}>
                <SessionLabelsPanel sessionId={sessionId} judgeTotal={current?.total_score ?? null} judgeCriteria={currentName} />
              </Box>
            </>
          )}
        </>
      )}
    </>
  );
}
