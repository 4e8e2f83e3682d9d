import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { api } from '../../../api/client';
import { makeDistribution } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { AnalyticsPage } from '../AnalyticsPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return {
    ...actual,
    api: {
      scoreDistribution: vi.fn(),
      missingTools: vi.fn(),
      criteriaInUse: vi.fn(),
    },
  };
});

const mocked = vi.mocked(api, true);

function Where() {
  const location = useLocation();
  return <div data-testid="location">{location.pathname + location.search}</div>;
}

function renderAt(path: string, element: React.ReactNode) {
  return render(
    <MemoryRouter initialEntries={[path]}>
      <Routes>
        <Route path="/analytics" element={element} />
        <Route path="*" element={<Where />} />
      </Routes>
    </MemoryRouter>,
  );
}

const bands = makeDistribution;

beforeEach(() => {
  vi.resetAllMocks();
  mocked.criteriaInUse.mockResolvedValue([]);
  mocked.missingTools.mockResolvedValue({ criteria_hash: null, bucket: 'week', periods: 12, items: [] });
});

describe('AnalyticsPage', () => {
  it('says there is nothing to show before any score is completed', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([0, 0, 0, 0, 0]));
    renderAt('/analytics', <AnalyticsPage />);

    expect(await screen.findByText('No completed scores yet')).toBeInTheDocument();
    expect(screen.getByText('No missing tools named')).toBeInTheDocument();
  });

  it('draws one bar per band, each leading to its scores, as do the missing tools', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([1, 0, 2, 0, 0], [['s-low'], [], ['s-a', 's-b']]));
    mocked.missingTools.mockResolvedValue({
      criteria_hash: null,
      bucket: 'week',
      periods: 12,
      items: [
        {
          tool_name: 'k8s.pods_log',
          count: 2,
          session_ids: ['s-a', 's-low'],
          spellings: ['k8s.pods_log'],
          trend: [],
          by_agent: [],
          available_in_sessions: 0,
        },
      ],
    });
    renderAt('/analytics', <AnalyticsPage />);

    const bars = await screen.findAllByTestId('band-bar');
    expect(bars).toHaveLength(5);
    expect(bars[1]).toBeDisabled();
    expect(screen.getByRole('link', { name: 'k8s.pods_log · 2 sessions: open their scores' })).toHaveAttribute(
      'href',
      '/scores?criteria_hash=any&missing_tool=k8s.pods_log',
    );
    await userEvent.click(screen.getByRole('link', { name: 'Adequate · 2 sessions: open their scores' }));
    expect(screen.getByTestId('location')).toHaveTextContent('/scores?criteria_hash=any&band=adequate');
  });

  it('draws the counts as a chart and offers to re-score with the current criteria', async () => {
    mocked.scoreDistribution.mockResolvedValue(bands([1, 0, 2, 0, 0]));
    renderAt('/analytics', <AnalyticsPage />);

    expect(
      await screen.findByRole('img', { name: /^Score distribution: Failed \(0-44\) 1 session, Weak \(45-59\) 0 sessions/ }),
    ).toBeInTheDocument();
    expect(screen.getByTestId('distribution-card').querySelector('svg')).not.toBeNull();
    expect(screen.getByRole('link', { name: 'Re-score with current criteria' })).toHaveAttribute(
      'href',
      expect.stringMatching(/^\/runs\/new\?which=not_current_criteria&/),
    );
  });

  it('shows the error when the analytics cannot be loaded', async () => {
    mocked.scoreDistribution.mockRejectedValue(new Error('database unavailable'));
    renderAt('/analytics', <AnalyticsPage />);

    expect(await screen.findByText(/Could not load the analytics: database unavailable/)).toBeInTheDocument();
  });
});
