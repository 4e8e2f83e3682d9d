// Whether the investigation found the session's known root cause (its reference), as the judge compared them.
import { Chip, Tooltip } from '@mui/material';
import type { Outcome } from '../../api/generated/schema';

const LOOKS: Record<Outcome, { label: string; color: 'success' | 'warning' | 'error' | 'default' }> = {
  found: { label: 'Found', color: 'success' },
  partly_found: { label: 'Partly found', color: 'warning' },
  missed: { label: 'Missed', color: 'error' },
  no_reference: { label: 'No reference', color: 'default' },
};

const SOURCES: Record<string, string> = {
  label: 'the reference set on this page (labels API)',
  import: 'the reference in the imported document',
  source: 'the reference the session source carries',
};

/** A chip in a narrow column wraps its words instead of cutting them ("No refe..."). */
export const WRAPPING = {
  height: 'auto',
  maxWidth: '100%',
  '& .MuiChip-label': { whiteSpace: 'normal', overflowWrap: 'break-word', py: '2px' },
} as const;

export interface OutcomeChipProps {
  /** Null for an attempt not completed, or scored before outcomes were judged: nothing is shown. */
  outcome: Outcome | null | undefined;
  reason?: string | null;
  referenceSource?: string | null;
  size?: 'small' | 'medium';
}

/** The outcome as a chip in its colour; the judge's reason (and where the reference came from) as its tooltip. */
export function OutcomeChip({ outcome, reason, referenceSource, size = 'small' }: OutcomeChipProps) {
  if (!outcome) return null;
  const look = LOOKS[outcome];
  const against = referenceSource ? `Judged against ${SOURCES[referenceSource] ?? referenceSource}. ` : '';
  const title = `${against}${reason ?? ''}`.trim();
  const chip = (
    <Chip
      size={size}
      color={look.color}
      variant={outcome === 'no_reference' ? 'outlined' : 'filled'}
      label={look.label}
      data-testid="outcome-chip"
      data-outcome={outcome}
      sx={WRAPPING}
    />
  );
  return title ? (
    <Tooltip title={title}>
      <span>{chip}</span>
    </Tooltip>
  ) : (
    chip
  );
}
