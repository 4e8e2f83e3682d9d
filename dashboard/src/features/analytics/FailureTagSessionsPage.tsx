// The sessions whose latest score has one failure tag (the drill-down of a failure-tag chip), newest scored first.
import { Box, Breadcrumbs, Card, CardContent, Link, Stack, Typography } from '@mui/material';
import { useQuery } from '@tanstack/react-query';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { api, errorMessage } from '../../api/client';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { useUrlState } from '../../shared/urlState';

export function FailureTagSessionsPage() {
  const { tag = '' } = useParams();
  const { params } = useUrlState();
  const criteriaHash = params.get('criteria_hash');
  const sessions = useQuery({
    queryKey: ['analytics', 'failure-tag-sessions', tag, criteriaHash],
    queryFn: () => api.failureTagSessions(tag, criteriaHash),
  });
  const items = sessions.data?.items ?? [];
  const shown = tag.replace(/_/g, ' ');

  return (
    <>
      <Breadcrumbs sx={{ mb: 1 }}>
        <Link component={RouterLink} to="/analytics">
          Analytics
        </Link>
        <Typography color="text.primary">Failure tag: {shown}</Typography>
      </Breadcrumbs>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Sessions tagged {shown}
      </Typography>
      {sessions.error && (
        <ErrorState message={`Could not load the sessions: ${errorMessage(sessions.error)}`} onRetry={() => void sessions.refetch()} />
      )}
      {sessions.isPending && <Loading what="sessions" />}
      {sessions.isSuccess && items.length === 0 && <EmptyState title="No session's latest score has this tag" />}
      <Stack spacing={1.5}>
        {items.map((item) => (
          <Card key={item.score_id} variant="outlined" data-testid="tag-session">
            <CardContent sx={{ '&:last-child': { pb: 2 } }}>
              <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1 }}>
                <ScoreBadge score={{ status: 'completed', total_score: item.total_score }} />
                <Link component={RouterLink} to={`/sessions/${encodeURIComponent(item.session_id)}`} sx={{ overflowWrap: 'anywhere' }}>
                  {item.session_id}
                </Link>
                <Typography variant="caption" color="text.secondary">
                  scored {new Date(item.scored_at).toLocaleDateString()}
                </Typography>
              </Box>
            </CardContent>
          </Card>
        ))}
      </Stack>
    </>
  );
}
