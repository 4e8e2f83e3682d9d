// Missing tools: the tools the judge names missing most often, their trend, and a way into each tool's sessions.
import { Box, Card, CardContent, Typography } from '@mui/material';
import { errorMessage } from '../../api/client';
import { useCriteriaInUse } from '../../shared/criteria';
import { ErrorState, Loading, Refreshing } from '../../shared/components/StateViews';
import { useUrlState } from '../../shared/urlState';
import { useMissingTools } from './queries';
import { AnalyticsNav } from './AnalyticsNav';
import { CriteriaSelect } from './CriteriaSelect';
import { MissingToolsTable } from './MissingToolsTable';

export function MissingToolsPage() {
  const { params, update } = useUrlState();
  const criteriaHash = params.get('criteria_hash');
  const { data: criteria = [] } = useCriteriaInUse();
  const tools = useMissingTools(criteriaHash);

  return (
    <>
      <Typography variant="h5" component="h1" sx={{ mb: 1 }}>
        Analytics: missing tools
      </Typography>
      <AnalyticsNav />
      <Box sx={{ mb: 2 }}>
        <CriteriaSelect label="Criteria" value={criteriaHash} criteria={criteria} allowAll onChange={(h) => update({ criteria_hash: h })} />
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        Sessions whose latest completed score names the tool missing. Open a tool to read why, session by session.
      </Typography>
      {tools.error && <ErrorState message={`Could not load the missing tools: ${errorMessage(tools.error)}`} onRetry={() => void tools.refetch()} />}
      {tools.isPending && <Loading what="missing tools" />}
      {tools.data && (
        <Card variant="outlined" aria-busy={tools.isFetching}>
          <Refreshing active={tools.isFetching} what="missing tools" />
          <CardContent>
            <MissingToolsTable report={tools.data} criteriaHash={criteriaHash} />
          </CardContent>
        </Card>
      )}
    </>
  );
}
