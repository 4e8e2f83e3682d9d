// The design's five score bands (EP-0028), shared by the badge and the analytics page.

export interface BandStyle {
  band: 'failed' | 'weak' | 'adequate' | 'good' | 'near_perfect';
  label: string;
  min: number;
  max: number;
  background: string;
  text: string;
}

export const SCORE_BANDS: BandStyle[] = [
  { band: 'failed', label: 'Failed', min: 0, max: 44, background: '#d32f2f', text: '#ffffff' },
  { band: 'weak', label: 'Weak', min: 45, max: 59, background: '#ef6c00', text: '#ffffff' },
  { band: 'adequate', label: 'Adequate', min: 60, max: 74, background: '#fdd835', text: '#212121' },
  { band: 'good', label: 'Good', min: 75, max: 89, background: '#9ccc65', text: '#1b3a00' },
  { band: 'near_perfect', label: 'Near-perfect', min: 90, max: 100, background: '#1b5e20', text: '#ffffff' },
];

/** The band of a 0-100 score (scores outside the range are clamped). */
export function bandFor(score: number): BandStyle {
  const clamped = Math.max(0, Math.min(100, Math.round(score)));
  return SCORE_BANDS.find((b) => clamped >= b.min && clamped <= b.max) ?? SCORE_BANDS[0];
}

export function bandStyle(band: string): BandStyle | undefined {
  return SCORE_BANDS.find((b) => b.band === band);
}
