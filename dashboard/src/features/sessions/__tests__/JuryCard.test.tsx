import { screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { ScoreDetailView } from '../ScoreDetailView';

const JURY = {
  jurors: [
    { provider: 'anthropic', model: 'claude-sonnet-4-6', name: 'anthropic', total: 40, failed: null, excluded: null, same_family_as_agent: false },
    { provider: 'google', model: 'gemini-2.5-pro', name: 'google-default', total: 80, failed: null, excluded: null, same_family_as_agent: true },
    {
      provider: 'openai',
      model: 'gpt-5',
      name: 'openai-default',
      total: null,
      failed: 'the judge answered 500: the server had an error',
      excluded: null,
      same_family_as_agent: false,
    },
  ],
  quorum: 2,
  verdicts: 2,
  total_spread: { min: 40, max: 80, stdev: 28.284 },
};

function renderScore(overrides: Parameters<typeof makeScore>[0]) {
  return render(
    <MemoryRouter>
      <ScoreDetailView score={makeScore(overrides)} />
    </MemoryRouter>,
  );
}

describe('the jury on a score', () => {
  it("shows each juror's total, the spread and who failed, and why", () => {
    renderScore({ total_score: 60, judge: { ...makeScore().judge, provider: 'jury' }, jury: JURY });

    const card = screen.getByTestId('jury');
    expect(within(card).getByTestId('jury-summary')).toHaveTextContent(
      'Median 60 of 2 verdicts (quorum 2) · totals 40–80, spread 40 points, standard deviation 28.3 · 1 of 3 jurors failed',
    );
    const rows = within(card).getAllByTestId('juror');
    expect(rows.map((r) => r.getAttribute('data-provider'))).toEqual(['anthropic', 'google', 'openai']);
    expect(rows.map((r) => within(r).getByTestId('juror-total').textContent)).toEqual(['40', '80', '–']);
    expect(rows[0]).toHaveTextContent('claude-sonnet-4-6');
    expect(rows[0]).toHaveTextContent('verdict given');
    expect(rows[1]).toHaveTextContent("google-defaultgoogle");
    expect(within(rows[1]).getByText("agent's family")).toBeInTheDocument();
    expect(rows[2]).toHaveTextContent('failed: the judge answered 500: the server had an error');
    expect(within(rows[0]).queryByText("agent's family")).toBeNull();
  });

  it('says why a juror was left out', () => {
    const excluded = {
      ...JURY.jurors[1],
      total: null,
      excluded: "left out: gemini-2.5-pro is of the agent's model family (gemini)",
    };
    renderScore({ total_score: 40, jury: { ...JURY, jurors: [JURY.jurors[0], excluded, JURY.jurors[2]] } });

    const rows = screen.getAllByTestId('juror');
    expect(rows[1]).toHaveTextContent("left out: gemini-2.5-pro is of the agent's model family (gemini)");
    expect(rows[1]).not.toHaveTextContent('failed:');
  });

  it('is not shown for a single judge', () => {
    renderScore({ jury: null });

    expect(screen.queryByTestId('jury')).toBeNull();
  });
});
