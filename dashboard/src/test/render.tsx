// Testing Library's render inside the dashboard's query cache, as main.tsx sets it up. The score bands are in the
// cache already (as if fetched from the API), unless a test says `bands: null` to see the dashboard without them.
import { QueryClientProvider } from '@tanstack/react-query';
import { render as rtlRender, type RenderOptions } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { createQueryClient } from '../api/queryClient';
import { type BandDefinition, scoreBandsKey } from '../shared/scoreBands';
import { makeDistribution } from './fixtures';

export const BAND_DEFINITIONS: BandDefinition[] = makeDistribution().bands.map(({ band, label, min_score, max_score }) => ({
  band,
  label,
  min_score,
  max_score,
}));

export function render(ui: ReactElement, { bands = BAND_DEFINITIONS, ...options }: RenderOptions & { bands?: BandDefinition[] | null } = {}) {
  const client = createQueryClient();
  if (bands) client.setQueryData(scoreBandsKey, bands);
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>;
  return { client, ...rtlRender(ui, { wrapper, ...options }) };
}
