import { FormControl, InputLabel, MenuItem, Select } from '@mui/material';
import { useId } from 'react';
import type { CriteriaUsage } from '../../api/generated/schema';
import { criteriaName } from '../../shared/criteria';

const ALL = 'all';

/** Pick a stored criteria (by hash); with `allowAll`, "All criteria" is the null choice. */
export function CriteriaSelect({
  label,
  value,
  criteria,
  onChange,
  allowAll = false,
}: {
  label: string;
  value: string | null;
  criteria: CriteriaUsage[];
  onChange: (criteriaHash: string | null) => void;
  allowAll?: boolean;
}) {
  const id = useId();
  const known = value !== null && criteria.some((c) => c.criteria_hash === value);
  return (
    <FormControl size="small" sx={{ minWidth: 240, maxWidth: '100%' }}>
      <InputLabel id={id}>{label}</InputLabel>
      <Select
        labelId={id}
        label={label}
        value={known ? value : allowAll ? ALL : ''}
        onChange={(e) => onChange(e.target.value === ALL || e.target.value === '' ? null : e.target.value)}
      >
        {allowAll && <MenuItem value={ALL}>All criteria</MenuItem>}
        {criteria.map((c) => (
          <MenuItem key={c.criteria_hash} value={c.criteria_hash}>
            {criteriaName(c)}
          </MenuItem>
        ))}
      </Select>
    </FormControl>
  );
}
