// Small formatting helpers of the Analytics views.

/** A bucket's start as a short UTC date ("Nov 2"); buckets are UTC days or weeks. */
export const bucketLabel = (iso: string) =>
  new Date(iso).toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** A figure with `digits` decimals, or a dash when there is none. */
export const fixed = (value: number | null | undefined, digits = 1) => (value == null ? '—' : value.toFixed(digits));

/** A signed delta ("+2.5", "-1.0"), or a dash. */
export const signed = (value: number | null | undefined, digits = 1) =>
  value == null ? '—' : `${value > 0 ? '+' : ''}${value.toFixed(digits)}`;

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Read a URL parameter that must be one of `allowed`, else the first of them. */
export function oneOf<T extends string>(value: string | null, allowed: readonly T[]): T {
  return (allowed as readonly string[]).includes(value ?? '') ? (value as T) : allowed[0];
}
