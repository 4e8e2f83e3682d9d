import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
} from '@mui/material';
import { useState } from 'react';
import type { ScoreStatus } from '../../api/generated/schema';
import { isActive } from '../../shared/scoreStatus';
import { useBlockedReason } from '../../shared/useMe';

export interface ScoreSessionButtonProps {
  /** Status of the latest attempt; null when never scored. */
  status: ScoreStatus | null;
  /** A request is being sent. */
  submitting?: boolean;
  /** Why the last request or attempt failed. */
  error?: string | null;
  /** Why the session cannot be scored (e.g. it is not finished); a caller without the operator role is told too. */
  disabledReason?: string | null;
  onScore: (forceRescore: boolean) => void;
}

const ACTIVE_TEXT: Partial<Record<ScoreStatus, string>> = { pending: 'Queued…', in_progress: 'Scoring…' };

/** Score Session, its progress while the attempt runs, and Re-score behind a confirmation. */
export function ScoreSessionButton({ status, submitting, error, disabledReason: sessionReason, onScore }: ScoreSessionButtonProps) {
  const roleReason = useBlockedReason('score');
  const disabledReason = sessionReason ?? roleReason;
  const [confirming, setConfirming] = useState(false);
  const active = isActive(status);
  const completed = status === 'completed';

  let button;
  if (active || submitting) {
    button = (
      <Button variant="contained" disabled startIcon={<CircularProgress size={16} color="inherit" aria-hidden />}>
        {submitting && !active ? 'Requesting…' : ACTIVE_TEXT[status ?? 'pending']}
      </Button>
    );
  } else if (completed) {
    button = (
      <Button variant="outlined" onClick={() => setConfirming(true)} disabled={Boolean(disabledReason)}>
        Re-score
      </Button>
    );
  } else {
    button = (
      <Button variant="contained" onClick={() => onScore(status === 'failed')} disabled={Boolean(disabledReason)}>
        {status === 'failed' ? 'Score again' : 'Score Session'}
      </Button>
    );
  }

  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', gap: 1, alignItems: 'flex-start' }}>
      {button}
      {active && (
        <Box role="status" sx={{ color: 'text.secondary', typography: 'body2' }}>
          {status === 'pending' ? 'The attempt is queued for the judge.' : 'The judge is reading the session.'}
        </Box>
      )}
      {disabledReason && !active && <Alert severity="info">{disabledReason}</Alert>}
      {error && !active && <Alert severity="error">{error}</Alert>}
      <Dialog open={confirming} onClose={() => setConfirming(false)}>
        <DialogTitle>Score this session again?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            The judge scores the session again with the current criteria. The existing score is kept in the list of
            earlier attempts.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setConfirming(false)}>Cancel</Button>
          <Button
            variant="contained"
            onClick={() => {
              setConfirming(false);
              onScore(true);
            }}
          >
            Yes, re-score
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
