// The score bands: their definitions (names, labels, bounds) come from the API (useScoreBands); only their colours
// live here, keyed by band name.
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import type { ScoreBand } from '../api/generated/schema';

/** A score band as the API defines it (name, label, inclusive bounds), without a distribution's counts. */
export type BandDefinition = Pick<ScoreBand, 'band' | 'label' | 'min_score' | 'max_score'>;

export const scoreBandsKey = ['score-bands'] as const;

/** The score bands, from the API's score distribution; fetched once per page load (they change only on deploy). */
export function useScoreBands() {
  return useQuery({
    queryKey: scoreBandsKey,
    queryFn: async (): Promise<BandDefinition[]> =>
      (await api.scoreDistribution(null)).bands.map(({ band, label, min_score, max_score }) => ({
        band,
        label,
        min_score,
        max_score,
      })),
    staleTime: Infinity,
    gcTime: Infinity,
  });
}

export interface BandColours {
  background: string;
  text: string;
}

const COLOURS: Record<string, BandColours> = {
  failed: { background: '#d32f2f', text: '#ffffff' },
  weak: { background: '#ef6c00', text: '#212121' }, // white on this orange is 3:1, below WCAG AA
  adequate: { background: '#fdd835', text: '#212121' },
  good: { background: '#9ccc65', text: '#1b3a00' },
  near_perfect: { background: '#1b5e20', text: '#ffffff' },
};

/** For a band the dashboard has no colour for (added in the API later), and while the bands load: 5.6:1 contrast, as
 * readable as the bands' own (white on the lighter #90a4ae was 2.5:1, which axe flagged when the bands loaded late). */
export const NEUTRAL: BandColours = { background: '#546e7a', text: '#ffffff' };

export const bandColours = (band: string | undefined): BandColours => (band && COLOURS[band]) || NEUTRAL;

/** The band a 0-100 score falls in (rounded and clamped to the bands' range); undefined when no band holds it. */
export function bandFor(score: number, bands: readonly BandDefinition[]): BandDefinition | undefined {
  if (bands.length === 0) return undefined;
  const low = Math.min(...bands.map((b) => b.min_score));
  const high = Math.max(...bands.map((b) => b.max_score));
  const clamped = Math.max(low, Math.min(high, Math.round(score)));
  return bands.find((b) => clamped >= b.min_score && clamped <= b.max_score);
}

/** The band of a score, once the API's bands are loaded (undefined before, or if they cannot be loaded). */
export function useBandOf(score: number | null | undefined): BandDefinition | undefined {
  const { data: bands } = useScoreBands();
  return score == null || !bands ? undefined : bandFor(score, bands);
}
