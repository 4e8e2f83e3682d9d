import { Box, Breadcrumbs, Chip, Link, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { Link as RouterLink, useParams, useSearchParams } from 'react-router-dom';
import { ApiError, errorMessage } from '../../api/client';
import { isActive } from '../../shared/scoreStatus';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { SessionLabelsPanel } from '../quality/LabelForm';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { useLatestScore, useRequestScore, useScoreHistory, useSession } from './queries';
import { ConversationView } from './ConversationView';
import { ScoreDetailView } from './ScoreDetailView';
import { ScoreSessionButton } from './ScoreSessionButton';

type View = 'score' | 'conversation';

/** One session: its conversation, or its score with the Score Session button. */
export function SessionDetailPage() {
  const { sessionId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const view: View = params.get('view') === 'conversation' ? 'conversation' : 'score';
  const sessionQuery = useSession(sessionId);
  const session = sessionQuery.data;
  const sessionError = !sessionQuery.error
    ? null
    : sessionQuery.error instanceof ApiError && sessionQuery.error.status === 404
      ? `Session ${sessionId} is not known to the session source.`
      : `Could not load the session: ${errorMessage(sessionQuery.error)}`;

  const latest = useLatestScore(sessionId);
  const history = useScoreHistory(sessionId);
  const request = useRequestScore(sessionId);
  const score = latest.data ?? null;
  const scoreLoading = latest.isPending || history.isPending;
  const loadFailure = (latest.data === undefined && latest.error) || (history.data === undefined && history.error);
  const loadError = loadFailure ? errorMessage(loadFailure) : null;
  const reloadScore = () => {
    void latest.refetch();
    void history.refetch();
  };
  // A failed poll keeps the last answer (and polling goes on): say so instead of hiding it.
  const requestError = request.error
    ? errorMessage(request.error)
    : latest.error && isActive(score?.status)
      ? `could not check the scoring progress: ${errorMessage(latest.error)}`
      : null;

  const notScorable = session && session.status !== 'completed'
    ? `This session is ${session.status}; only completed sessions can be scored.`
    : null;

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
        <Typography variant="h5">{session?.alert_type ?? 'Session'}</Typography>
        {session && <Chip size="small" variant="outlined" label={session.status} />}
        {!scoreLoading && <ScoreBadge score={score} size="medium" />}
        {session && (
          <Typography variant="body2" color="text.secondary">
            {session.agent_type ?? 'unknown agent'} · submitted by {session.author ?? 'unknown'} ·{' '}
            {session.started_at ? new Date(session.started_at).toLocaleString() : 'no start time'}
          </Typography>
        )}
        <Box sx={{ flexGrow: 1 }} />
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
      </Box>

      {sessionError && <ErrorState message={sessionError} onRetry={() => void sessionQuery.refetch()} />}

      {view === 'conversation' &&
        (session ? <ConversationView session={session} /> : !sessionError && <Loading what="the conversation" />)}

      {view === 'score' && (
        <>
          {loadError && <ErrorState message={`Could not load the score: ${loadError}`} onRetry={reloadScore} />}
          {scoreLoading ? (
            <Loading what="the score" />
          ) : (
            <>
              <Box sx={{ mb: 2 }}>
                <ScoreSessionButton
                  status={score?.status ?? null}
                  submitting={request.isPending}
                  error={requestError ?? (score?.status === 'failed' ? score.error_message : null)}
                  disabledReason={sessionError ? null : notScorable}
                  onScore={(force) => request.mutate(force)}
                />
              </Box>
              <SessionLabelsPanel sessionId={sessionId} judgeTotal={score?.status === 'completed' ? (score.total_score ?? null) : null} />
              {score ? (
                <ScoreDetailView
                  score={score}
                  alert={session?.alert}
                  finalAnalysis={session?.final_analysis}
                  history={history.data ?? []}
                />
              ) : (
                !loadError && (
                  <EmptyState title="Not scored yet">
                    Score Session asks the judge to grade this investigation; the critique appears here.
                  </EmptyState>
                )
              )}
            </>
          )}
        </>
      )}
    </>
  );
}
