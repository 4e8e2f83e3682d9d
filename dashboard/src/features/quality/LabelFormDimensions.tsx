// A human label's optional breakdown, one field per dimension of the rubric in force (its label and its own
// maximum, as GET /criteria/current describes it): the API checks the same rules and refuses a label that breaks one.
import { Box, TextField, Typography } from '@mui/material';
import { useState } from 'react';
import type { RubricInfo } from '../../api/generated/schema';

export type BreakdownDraft = Record<string, string>;

const isWhole = (text: string) => /^\d{1,3}$/.test(text.trim());

/** What the API would refuse in the draft (null: nothing, or no breakdown given), the total rule included: under a
 * `sum` rubric the points, scaled to 0-100 as the judge's are, are the total; a `holistic` total is the human's own. */
export function breakdownProblem(rubric: RubricInfo, draft: BreakdownDraft, total: number | null): string | null {
  const filled = rubric.dimensions.filter((d) => (draft[d.key] ?? '').trim() !== '');
  if (filled.length === 0) return null;
  for (const d of filled) {
    const text = draft[d.key].trim();
    if (!isWhole(text) || Number(text) > d.max_points) return `${d.label}: a whole number from 0 to ${d.max_points}`;
  }
  if (filled.length < rubric.dimensions.length) {
    const empty = rubric.dimensions.filter((d) => !filled.includes(d)).map((d) => d.label);
    return `Give every dimension or none: ${empty.join(', ')} empty`;
  }
  if (rubric.total === 'sum' && total !== null) {
    const points = rubric.dimensions.reduce((sum, d) => sum + Number(draft[d.key]), 0);
    const maxSum = rubric.dimensions.reduce((sum, d) => sum + d.max_points, 0);
    const scaled = Math.floor((200 * points + maxSum) / (2 * maxSum)); // rounded half up, as the API scales it
    if (scaled !== total) {
      const of = maxSum === 100 ? '' : ` of ${maxSum}, ${scaled} on 0-100`;
      return `The dimensions add up to ${points}${of}: the total must be ${scaled}`;
    }
  }
  return null;
}

/** The draft as the API takes it: every dimension's points, or null when none is given. */
export function breakdownOf(rubric: RubricInfo | null | undefined, draft: BreakdownDraft): Record<string, number> | null {
  if (!rubric || rubric.dimensions.every((d) => (draft[d.key] ?? '').trim() === '')) return null;
  return Object.fromEntries(rubric.dimensions.map((d) => [d.key, Number(draft[d.key].trim())]));
}

/** The draft of a breakdown under `rubric` and what is wrong with it for `total`. */
export function useBreakdownDraft(rubric: RubricInfo | null | undefined, total: number | null) {
  const [draft, setDraft] = useState<BreakdownDraft>({});
  const problem = rubric ? breakdownProblem(rubric, draft, total) : null;
  return {
    draft,
    setPoints: (key: string, text: string) => setDraft((d) => ({ ...d, [key]: text.replace(/\D/g, '').slice(0, 3) })),
    problem,
    breakdown: problem === null ? breakdownOf(rubric, draft) : null,
  };
}

/** One field per dimension of the rubric, each labelled with its maximum; nothing without a rubric. */
export function LabelFormDimensions({
  rubric,
  draft,
  problem,
  onChange,
  idPrefix,
}: {
  rubric: RubricInfo | null | undefined;
  draft: BreakdownDraft;
  problem: string | null;
  onChange: (key: string, text: string) => void;
  /** Tells the fieldsets of two forms on one page apart. */
  idPrefix: string;
}) {
  if (!rubric || rubric.dimensions.length === 0) return null;
  const legendId = `${idPrefix}-breakdown`;
  const problemId = `${idPrefix}-breakdown-problem`;
  const rule = rubric.total === 'sum' ? 'they add up to your total' : 'your total is your own';
  return (
    <Box
      component="fieldset"
      aria-labelledby={legendId}
      aria-describedby={problem ? problemId : undefined}
      data-testid="label-breakdown"
      data-rubric={rubric.name}
      sx={{ border: 0, p: 0, m: 0, minWidth: 0, width: '100%', display: 'flex', flexWrap: 'wrap', gap: 1, alignItems: 'flex-start' }}
    >
      <Typography component="legend" id={legendId} variant="body2" color="text.secondary" sx={{ width: '100%', mb: 0.5 }}>
        Breakdown (optional; rubric {rubric.name}: every dimension or none, {rule})
      </Typography>
      {rubric.dimensions.map((d) => {
        const text = draft[d.key] ?? '';
        const bad = text !== '' && Number(text) > d.max_points;
        return (
          <TextField
            key={d.key}
            label={`${d.label} (0-${d.max_points})`}
            size="small"
            value={text}
            onChange={(e) => onChange(d.key, e.target.value)}
            error={bad}
            helperText={bad ? `At most ${d.max_points}` : ' '}
            title={d.description}
            sx={{ width: 170 }}
            slotProps={{ htmlInput: { inputMode: 'numeric', 'data-dimension': d.key } }}
          />
        );
      })}
      {problem && (
        <Typography id={problemId} role="status" variant="body2" color="error" sx={{ width: '100%' }} data-testid="label-breakdown-problem">
          {problem}
        </Typography>
      )}
    </Box>
  );
}
