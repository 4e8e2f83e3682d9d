// A human's label of a session beside the judge's score: each labeller's current label, and a form to add the
// caller's own (a second one revises it; the API keeps every revision), with an optional breakdown over the
// dimensions of the rubric in force.
import { Alert, Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api/client';
import type { LabelRequest, RubricInfo, SessionLabel } from '../../api/generated/schema';
import { useLabels, usePutLabel } from './queries';
import { useBlockedReason } from '../../shared/useMe';
import { useCurrentJudge } from '../runs/queries';
import { SessionReferencePanel } from './ReferenceEditor';
import { LabelFormDimensions, useBreakdownDraft } from './LabelFormDimensions';

export interface LabelFormProps {
  /** The judge's total the agreement compares labels with: the latest completed score under the current criteria. */
  judgeTotal: number | null;
  /** The name of the criteria in force, which that score used. */
  judgeCriteria?: string | null;
  labels: SessionLabel[];
  /** The rubric of the criteria in force: a field per dimension (none while it is unknown). */
  rubric?: RubricInfo | null;
  submitting?: boolean;
  error?: string | null;
  onSubmit: (label: LabelRequest) => void;
}

export function LabelForm({ judgeTotal, judgeCriteria = null, labels, rubric = null, submitting = false, error = null, onSubmit }: LabelFormProps) {
  const [total, setTotal] = useState('');
  const [notes, setNotes] = useState('');
  const blocked = useBlockedReason('label');
  const value = Number(total);
  const valid = total.trim() !== '' && Number.isInteger(value) && value >= 0 && value <= 100;
  const dimensions = useBreakdownDraft(rubric, valid ? value : null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid || dimensions.problem) return;
    const breakdown = dimensions.breakdown;
    onSubmit({ total_score: value, ...(breakdown ? { score_breakdown: breakdown } : {}), notes: notes.trim() || null });
  };

  return (
    <Card variant="outlined" sx={{ mb: 2 }}>
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Human labels
        </Typography>
        <Stack direction="row" spacing={3} sx={{ mb: 1, flexWrap: 'wrap' }}>
          <Typography data-testid="label-judge">
            Judge{judgeCriteria ? ` (${judgeCriteria}, current)` : ''}:{' '}
            <strong>{judgeTotal ?? (judgeCriteria ? 'not scored' : '—')}</strong>
          </Typography>
          {labels.length === 0 && <Typography color="text.secondary">No human label yet.</Typography>}
          {labels.map((label) => (
            <Typography key={label.labeller} title={label.notes ?? undefined}>
              {label.labeller}: <strong>{label.total_score}</strong>
              {label.revision > 1 ? ` (revision ${label.revision})` : ''}
            </Typography>
          ))}
        </Stack>
        <Box component="form" onSubmit={submit} sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'flex-start' }}>
          <TextField
            label="Your score (0-100)"
            size="small"
            value={total}
            onChange={(e) => setTotal(e.target.value)}
            error={total !== '' && !valid}
            helperText={total !== '' && !valid ? 'A whole number from 0 to 100' : ' '}
            slotProps={{ htmlInput: { inputMode: 'numeric' } }}
          />
          <TextField label="Notes" size="small" value={notes} onChange={(e) => setNotes(e.target.value)} sx={{ flexGrow: 1, minWidth: 200 }} />
          <Button type="submit" variant="contained" disabled={!valid || Boolean(dimensions.problem) || submitting || Boolean(blocked)}>
            {submitting ? 'Saving…' : 'Save label'}
          </Button>
          <LabelFormDimensions rubric={rubric} draft={dimensions.draft} problem={dimensions.problem} onChange={dimensions.setPoints} idPrefix="label-form" />
        </Box>
        {blocked && (
          <Alert severity="info" sx={{ mt: 1 }}>
            {blocked}
          </Alert>
        )}
        {error && (
          <Alert severity="error" sx={{ mt: 1 }}>
            {error}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

/** The label form wired to the API for one session, and the session's known root cause beside it. */
export function SessionLabelsPanel({
  sessionId,
  judgeTotal,
  judgeCriteria = null,
}: {
  sessionId: string;
  judgeTotal: number | null;
  judgeCriteria?: string | null;
}) {
  const labels = useLabels(sessionId);
  const put = usePutLabel(sessionId);
  const criteria = useCurrentJudge();
  return (
    <>
      <LabelForm
        judgeTotal={judgeTotal}
        judgeCriteria={judgeCriteria}
        labels={labels.data?.current ?? []}
        rubric={criteria.data?.rubric ?? null}
        submitting={put.isPending}
        error={put.error ? errorMessage(put.error) : labels.error ? errorMessage(labels.error) : null}
        onSubmit={(label) => put.mutate(label)}
      />
      <SessionReferencePanel sessionId={sessionId} />
    </>
  );
}
