import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { render } from '../../test/render';
import { Loading } from '../components/StateViews';

describe('Loading', () => {
  it('names its spinner, so a screen reader says what is loading', () => {
    render(<Loading what="the scores" />);

    expect(screen.getByRole('progressbar', { name: 'Loading the scores' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Loading the scores…');
  });
});
