import { Box, Breadcrumbs, Chip, Link, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import { AxiosError } from 'axios';
import { useCallback, useEffect, useState } from 'react';
import { Link as RouterLink, useParams, useSearchParams } from 'react-router-dom';
import { api, errorMessage } from '../api/client';
import type { SessionDetail } from '../api/types';
import { ConversationView } from '../components/ConversationView';
import { ScoreBadge } from '../components/ScoreBadge';
import { ScoreDetailView } from '../components/ScoreDetailView';
import { ScoreSessionButton } from '../components/ScoreSessionButton';
import { EmptyState, ErrorState, Loading } from '../components/StateViews';
import { useSessionScore } from '../useSessionScore';

type View = 'score' | 'conversation';

/** One session: its conversation, or its score with the Score Session button. */
export function SessionDetailPage() {
  const { sessionId = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const view: View = params.get('view') === 'conversation' ? 'conversation' : 'score';
  const [session, setSession] = useState<SessionDetail | null>(null);
  const [sessionError, setSessionError] = useState<string | null>(null);
  const scoring = useSessionScore(sessionId);

  const loadSession = useCallback(() => {
    setSessionError(null);
    api
      .getSession(sessionId)
      .then(setSession)
      .catch((err: unknown) =>
        setSessionError(
          err instanceof AxiosError && err.response?.status === 404
            ? `Session ${sessionId} is not known to the session source.`
            : `Could not load the session: ${errorMessage(err)}`,
        ),
      );
  }, [sessionId]);
  useEffect(loadSession, [loadSession]);

  const score = scoring.score;
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
        {!scoring.loading && <ScoreBadge score={score} size="medium" />}
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

      {sessionError && <ErrorState message={sessionError} onRetry={loadSession} />}

      {view === 'conversation' &&
        (session ? <ConversationView session={session} /> : !sessionError && <Loading what="the conversation" />)}

      {view === 'score' && (
        <>
          {scoring.loadError && <ErrorState message={`Could not load the score: ${scoring.loadError}`} onRetry={scoring.reload} />}
          {scoring.loading ? (
            <Loading what="the score" />
          ) : (
            <>
              <Box sx={{ mb: 2 }}>
                <ScoreSessionButton
                  status={score?.status ?? null}
                  submitting={scoring.submitting}
                  error={scoring.requestError ?? (score?.status === 'failed' ? score.error_message : null)}
                  disabledReason={sessionError ? null : notScorable}
                  onScore={(force) => void scoring.request(force)}
                />
              </Box>
              {score ? (
                <ScoreDetailView
                  score={score}
                  alert={session?.alert}
                  finalAnalysis={session?.final_analysis}
                  history={scoring.history}
                />
              ) : (
                !scoring.loadError && (
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
