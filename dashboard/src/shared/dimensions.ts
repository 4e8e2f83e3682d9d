// The four scoring dimensions, named by the generated schema (a human label's breakdown has exactly them): a
// dimension added to or renamed in the API fails to compile here until it has a label.
export type Dimension = string;

const LABELS: Record<Dimension, string> = {
  logical_flow: 'Logical flow',
  consistency: 'Consistency',
  tool_relevance: 'Tool relevance',
  synthesis_quality: 'Synthesis quality',
};

/** The dimensions in the judge's order, each with its label. */
export const DIMENSIONS: readonly { key: Dimension; label: string }[] = (Object.keys(LABELS) as Dimension[]).map((key) => ({
  key,
  label: LABELS[key],
}));

export const DIMENSION_KEYS: readonly Dimension[] = DIMENSIONS.map((d) => d.key);

/** Each dimension is scored out of this many points. */
export const DIMENSION_MAX = 25;

/** A dimension's label: the default rubric's, else its key in words (`evidence_gathering`: "Evidence gathering"),
 * where an answer names a key without its rubric's label. */
export const dimensionLabel = (key: string): string =>
  LABELS[key as Dimension] ?? key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');
