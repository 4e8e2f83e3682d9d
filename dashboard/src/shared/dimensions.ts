// Scoring dimensions as a rubric defines them (the criteria file: config/rubrics/*.yaml). No list is fixed here: a
// view takes the dimensions of the rubric of the criteria in scope (`useRubricDimensions` in shared/criteria.ts), or
// the keys an answer carries, labelled and bounded by that rubric.

/** A dimension key (`evidence`, `next_steps`, ...): any key a rubric defines. */
export type Dimension = string;

/** A rubric's dimension as a chooser, a column or a chart axis needs it. */
export interface RubricDimension {
  key: Dimension;
  label: string;
  max_points: number;
}

/** A dimension's points are at most this many in any rubric (the criteria file's bound): the axis of a key that no
 * rubric in scope describes. */
export const ANY_DIMENSION_MAX = 100;

/** A key in words (`evidence_gathering`: "Evidence gathering"): the label of a key whose rubric is not known. */
export const dimensionLabel = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');

/** The dimensions of several rubrics, each key once: in the first rubric's order, then each next one's new keys; a
 * key two rubrics share keeps the first one's label and the larger maximum (an axis that bounds both). */
export function mergeDimensions(rubrics: readonly (readonly RubricDimension[])[]): RubricDimension[] {
  const merged = new Map<string, RubricDimension>();
  for (const dimensions of rubrics) {
    for (const d of dimensions) {
      const known = merged.get(d.key);
      merged.set(d.key, known ? { ...known, max_points: Math.max(known.max_points, d.max_points) } : { key: d.key, label: d.label, max_points: d.max_points });
    }
  }
  return [...merged.values()];
}

/** The dimensions of these keys (an answer's), labelled and bounded by the rubric where it has them: the rubric's
 * keys first in its order, then the others in the order given, in words and bounded by `ANY_DIMENSION_MAX`. */
export function dimensionsOf(keys: Iterable<string>, rubric: readonly RubricDimension[] | undefined): RubricDimension[] {
  const present = new Set(keys);
  const known = (rubric ?? []).filter((d) => present.has(d.key));
  const described = new Set(known.map((d) => d.key));
  const others = [...present]
    .filter((key) => !described.has(key))
    .map((key) => ({ key, label: dimensionLabel(key), max_points: ANY_DIMENSION_MAX }));
  return [...known, ...others];
}
