// The session's reference root cause in the label area: what the judges compare the conclusion with, who set it,
// and a form to set (a new revision) or withdraw it.
import { Alert, Box, Button, Card, CardContent, Stack, TextField, Typography } from '@mui/material';
import { type FormEvent, useState } from 'react';
import { errorMessage } from '../../api/client';
import type { ReferenceRequest, SessionReference } from '../../api/generated/schema';
import { useLabels, usePutReference, useWithdrawReference } from './queries';

/** The longest root cause or remediation the API takes (characters). */
export const MAX_REFERENCE_CHARS = 1000;

export interface ReferenceFormProps {
  reference: SessionReference | null;
  submitting?: boolean;
  error?: string | null;
  onSubmit: (reference: ReferenceRequest) => void;
  onWithdraw: () => void;
}

export function ReferenceForm({ reference, submitting = false, error = null, onSubmit, onWithdraw }: ReferenceFormProps) {
  const [rootCause, setRootCause] = useState(reference?.reference_root_cause ?? '');
  const [remediation, setRemediation] = useState(reference?.reference_remediation ?? '');
  const tooLong = rootCause.length > MAX_REFERENCE_CHARS || remediation.length > MAX_REFERENCE_CHARS;
  const valid = rootCause.trim() !== '' && !tooLong;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!valid) return;
    onSubmit({ reference_root_cause: rootCause.trim(), reference_remediation: remediation.trim() || null });
  };

  return (
    <Card variant="outlined" sx={{ mb: 2 }} data-testid="reference-editor">
      <CardContent>
        <Typography variant="h6" component="h2" gutterBottom>
          Known root cause
        </Typography>
        {reference ? (
          <Typography variant="body2" sx={{ mb: 1 }} data-testid="reference-current">
            Set by {reference.set_by} (revision {reference.revision}, {new Date(reference.created_at).toLocaleString()}).
            The next score compares the conclusion with it.
          </Typography>
        ) : (
          <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
            None set here. When the true root cause is known (a postmortem, a benchmark's ground truth), set it: the
            next score says whether the investigation found it. It never changes the method score.
          </Typography>
        )}
        <Box component="form" aria-label="reference root cause" onSubmit={submit}>
          <Stack spacing={1}>
            <TextField
              label="Root cause"
              size="small"
              multiline
              minRows={2}
              value={rootCause}
              onChange={(e) => setRootCause(e.target.value)}
              error={rootCause.length > MAX_REFERENCE_CHARS}
              helperText={`${rootCause.length}/${MAX_REFERENCE_CHARS}`}
            />
            <TextField
              label="Remediation (optional)"
              size="small"
              multiline
              value={remediation}
              onChange={(e) => setRemediation(e.target.value)}
              error={remediation.length > MAX_REFERENCE_CHARS}
              helperText={`${remediation.length}/${MAX_REFERENCE_CHARS}`}
            />
            <Stack direction="row" spacing={1}>
              <Button type="submit" variant="contained" disabled={!valid || submitting}>
                {submitting ? 'Saving…' : 'Save root cause'}
              </Button>
              {reference && (
                <Button onClick={onWithdraw} disabled={submitting}>
                  Withdraw
                </Button>
              )}
            </Stack>
          </Stack>
        </Box>
        {error && (
          <Alert severity="error" sx={{ mt: 1 }}>
            {error}
          </Alert>
        )}
      </CardContent>
    </Card>
  );
}

/** The reference form wired to the API for one session (it reads the reference with the session's labels). */
export function SessionReferencePanel({ sessionId }: { sessionId: string }) {
  const labels = useLabels(sessionId);
  const put = usePutReference(sessionId);
  const withdraw = useWithdrawReference(sessionId);
  if (labels.isPending) return null;
  const reference = labels.data?.reference ?? null;
  const failed = put.error ?? withdraw.error;
  return (
    <ReferenceForm
      // a new form (its fields from the stored reference) whenever the stored revision changes
      key={reference ? `${reference.revision}` : 'none'}
      reference={reference}
      submitting={put.isPending || withdraw.isPending}
      error={failed ? errorMessage(failed) : null}
      onSubmit={(body) => put.mutate(body)}
      onWithdraw={() => withdraw.mutate()}
    />
  );
}
