import {
  Accordion,
  AccordionDetails,
  AccordionSummary,
  Box,
  Card,
  CardContent,
  Chip,
  Stack,
  Typography,
} from '@mui/material';
import type { ConversationStep, SessionDetail } from '../../api/generated/schema';
import { JsonBlock } from '../../shared/components/JsonBlock';
import { Markdown } from '../../shared/components/Markdown';

function StepView({ step }: { step: ConversationStep }) {
  const call = step.tool_call;
  if (call) {
    const name = call.server ? `${call.server}.${call.name}` : call.name;
    return (
      <Accordion disableGutters variant="outlined" data-testid="tool-call">
        <AccordionSummary expandIcon={<span aria-hidden>▾</span>}>
          <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', minWidth: 0 }}>
            <Chip size="small" label="tool" />
            <code style={{ overflowWrap: 'anywhere' }}>{name}</code>
            {!call.success && <Chip size="small" color="error" label="failed" />}
            {call.duration_ms !== null && (
              <Typography variant="caption" color="text.secondary">
                {call.duration_ms} ms
              </Typography>
            )}
          </Box>
        </AccordionSummary>
        <AccordionDetails>
          <Typography variant="caption">Arguments</Typography>
          <JsonBlock value={call.arguments} />
          <Typography variant="caption">{call.success ? 'Result' : 'Error'}</Typography>
          <JsonBlock value={call.success ? call.result : (call.error ?? call.result)} />
        </AccordionDetails>
      </Accordion>
    );
  }
  return (
    <Box sx={{ pl: 1.5, borderLeft: 3, borderColor: step.kind === 'answer' ? 'success.main' : 'grey.300' }}>
      <Typography variant="caption" color="text.secondary">
        {step.kind}
      </Typography>
      <Markdown text={step.text ?? ''} />
    </Box>
  );
}

/** The investigation as it happened: the alert, each stage's reasoning and tool calls, the final analysis. */
export function ConversationView({ session }: { session: SessionDetail }) {
  return (
    <Stack spacing={2} data-testid="conversation">
      <Card variant="outlined">
        <CardContent>
          <Typography variant="h6" component="h2">Alert</Typography>
          <JsonBlock value={session.alert} />
        </CardContent>
      </Card>
      {session.stages.length === 0 && (
        <Typography color="text.secondary">The session has no recorded stages.</Typography>
      )}
      {session.stages.map((stage, i) => (
        <Card variant="outlined" key={`${stage.name}-${i}`}>
          <CardContent>
            <Box sx={{ display: 'flex', gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
              <Typography variant="h6" component="h2">{stage.name}</Typography>
              {stage.agent && <Chip size="small" label={stage.agent} />}
              <Chip size="small" variant="outlined" label={stage.status} />
              {stage.parallel_group && <Chip size="small" variant="outlined" label={`parallel: ${stage.parallel_group}`} />}
            </Box>
            <Stack spacing={1}>
              {stage.steps.map((step, n) => (
                <StepView step={step} key={n} />
              ))}
            </Stack>
            {stage.error && (
              <Typography color="error" variant="body2" sx={{ mt: 1 }}>
                {stage.error}
              </Typography>
            )}
          </CardContent>
        </Card>
      ))}
      <Card variant="outlined">
        <CardContent>
          <Typography variant="h6" component="h2">Final analysis</Typography>
          {session.final_analysis ? (
            <Markdown text={session.final_analysis} />
          ) : (
            <Typography color="text.secondary">No final analysis.</Typography>
          )}
        </CardContent>
      </Card>
    </Stack>
  );
}
