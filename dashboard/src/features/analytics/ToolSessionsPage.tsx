// One missing tool's sessions, newest scored first, each with the judge's rationale; paged with a cursor.
import { Box, Breadcrumbs, Button, Card, CardContent, Chip, Link, Stack, Typography } from '@mui/material';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { useToolSessions } from './queries';
import { ScoreBadge } from '../../shared/components/ScoreBadge';
import { EmptyState, ErrorState, Loading } from '../../shared/components/StateViews';
import { AnalyticsNav } from './AnalyticsNav';
import { useUrlState } from '../../shared/urlState';

export function ToolSessionsPage() {
  const { tool = '' } = useParams();
  const { params } = useUrlState();
  const criteriaHash = params.get('criteria_hash');
  const sessions = useToolSessions(tool, criteriaHash);
  const pages = sessions.data?.pages ?? [];
  const items = pages.flatMap((p) => p.items);
  const first = pages[0];
  const back = `/analytics/missing-tools${criteriaHash ? `?criteria_hash=${encodeURIComponent(criteriaHash)}` : ''}`;

  return (
    <>
      <Breadcrumbs sx={{ mb: 1 }}>
        <Link component={RouterLink} to={back}>
          Missing tools
        </Link>
        <Typography color="text.primary" sx={{ overflowWrap: 'anywhere' }}>
          {tool}
        </Typography>
      </Breadcrumbs>
      <Typography variant="h5" component="h1" sx={{ mb: 1, overflowWrap: 'anywhere' }}>
        Sessions missing {tool}
      </Typography>
      <AnalyticsNav />
      {first && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }} data-testid="tool-canonical">
          Counted as <strong>{first.canonical_name}</strong> (any spelling with that canonical name); {criteriaHash ? 'under the chosen criteria' : 'under any criteria'}, newest scored first.
        </Typography>
      )}
      {sessions.error && <ErrorState message={`Could not load the sessions: ${errorMessage(sessions.error)}`} onRetry={() => void sessions.refetch()} />}
      {sessions.isPending && <Loading what="sessions" />}
      {sessions.isSuccess && items.length === 0 && <EmptyState title="No session names this tool missing" />}
      <Stack spacing={1.5}>
        {items.map((item) => (
          <Card key={item.score_id} variant="outlined" data-testid="tool-session">
            <CardContent sx={{ '&:last-child': { pb: 2 } }}>
              <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 1, mb: 1 }}>
                <ScoreBadge score={{ status: 'completed', total_score: item.total_score }} />
                <Link component={RouterLink} to={`/sessions/${encodeURIComponent(item.session_id)}`} sx={{ overflowWrap: 'anywhere' }}>
                  {item.session_id}
                </Link>
                <Chip size="small" variant="outlined" label={item.agent ?? 'unknown agent'} />
                <Typography variant="caption" color="text.secondary">
                  scored {new Date(item.scored_at).toLocaleDateString()}
                  {item.tool_name !== tool ? ` · written ${item.tool_name}` : ''}
                </Typography>
              </Box>
              <Typography variant="body2" data-testid="tool-rationale">
                {item.rationale}
              </Typography>
            </CardContent>
          </Card>
        ))}
      </Stack>
      {sessions.hasNextPage && (
        <Button sx={{ mt: 2 }} variant="outlined" onClick={() => void sessions.fetchNextPage()} disabled={sessions.isFetchingNextPage}>
          {sessions.isFetchingNextPage ? 'Loading…' : 'More sessions'}
        </Button>
      )}
    </>
  );
}
