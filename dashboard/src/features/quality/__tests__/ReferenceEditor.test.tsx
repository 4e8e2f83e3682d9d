import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { SessionReference } from '../../../api/generated/schema';
import { render } from '../../../test/render';
import { OutcomeChip } from '../../../shared/components/OutcomeChip';
import { MAX_REFERENCE_CHARS, ReferenceForm } from '../ReferenceEditor';

const reference: SessionReference = {
  session_id: 'sess-1',
  revision: 2,
  reference_root_cause: 'the JVM heap equals the container limit',
  reference_remediation: null,
  set_by: 'alice@example.com',
  created_at: '2026-11-20T09:00:00Z',
};

describe('ReferenceForm', () => {
  it('sets the root cause and the remediation, trimmed', async () => {
    const onSubmit = vi.fn();
    render(<ReferenceForm reference={null} onSubmit={onSubmit} onWithdraw={vi.fn()} />);

    expect(screen.queryByRole('button', { name: 'Withdraw' })).not.toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Root cause'), '  disk full on node-3 ');
    await userEvent.type(screen.getByLabelText('Remediation (optional)'), 'clean the image cache');
    await userEvent.click(screen.getByRole('button', { name: 'Save root cause' }));

    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({
      reference_root_cause: 'disk full on node-3',
      reference_remediation: 'clean the image cache',
    });
  });

  it('shows the current reference with who set it, and withdraws it', async () => {
    const onWithdraw = vi.fn();
    render(<ReferenceForm reference={reference} onSubmit={vi.fn()} onWithdraw={onWithdraw} />);

    expect(screen.getByLabelText('Root cause')).toHaveValue('the JVM heap equals the container limit');
    expect(screen.getByTestId('reference-current')).toHaveTextContent('Set by alice@example.com (revision 2');
    await userEvent.click(screen.getByRole('button', { name: 'Withdraw' }));

    expect(onWithdraw).toHaveBeenCalledOnce();
  });

  it('refuses a blank or too long root cause and shows the API error', async () => {
    const { rerender } = render(<ReferenceForm reference={null} onSubmit={vi.fn()} onWithdraw={vi.fn()} />);
    const save = screen.getByRole('button', { name: 'Save root cause' });
    expect(save).toBeDisabled();
    await userEvent.type(screen.getByLabelText('Root cause'), '   ');
    expect(save).toBeDisabled();
    await userEvent.click(screen.getByLabelText('Root cause'));
    await userEvent.paste('x'.repeat(MAX_REFERENCE_CHARS + 1));
    expect(save).toBeDisabled();
    expect(screen.getByText(`${MAX_REFERENCE_CHARS + 4}/${MAX_REFERENCE_CHARS}`)).toBeInTheDocument();

    rerender(<ReferenceForm reference={null} error="session 'x' was not found" onSubmit={vi.fn()} onWithdraw={vi.fn()} />);
    expect(screen.getByRole('alert')).toHaveTextContent('was not found');
  });
});

describe('OutcomeChip', () => {
  it('names each outcome, nothing for a score without one', () => {
    const { rerender, container } = render(<OutcomeChip outcome="partly_found" reason="names the pod, not the cause" />);
    expect(screen.getByTestId('outcome-chip')).toHaveTextContent('Partly found');

    rerender(<OutcomeChip outcome="no_reference" />);
    expect(screen.getByTestId('outcome-chip')).toHaveTextContent('No reference');

    rerender(<OutcomeChip outcome={null} />);
    expect(container.querySelector('[data-testid="outcome-chip"]')).toBeNull();
  });
});
