import { ToggleButton, ToggleButtonGroup } from '@mui/material';

import { RANGES } from '../ranges';

/** The relative time ranges and "All time" (the empty range) as one toggle group: the presets the Scores and
 * Sessions pages offer, `label` saying what is ranged ("scored within", "started within"). */
export function RangeToggle({
  value,
  label,
  onChange,
}: {
  value: string;
  label: string;
  onChange: (range: string) => void;
}) {
  return (
    <ToggleButtonGroup
      size="small"
      exclusive
      value={value}
      aria-label={label}
      onChange={(_, next: string | null) => onChange(next ?? '')}
    >
      {Object.entries(RANGES).map(([range, { label: text }]) => (
        <ToggleButton key={range} value={range}>
          {text}
        </ToggleButton>
      ))}
      <ToggleButton value="">All time</ToggleButton>
    </ToggleButtonGroup>
  );
}
