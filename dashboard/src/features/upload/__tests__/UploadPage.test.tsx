import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, api } from '../../../api/client';
import type { ImportedSession, ImportedTrajectory } from '../../../api/generated/schema';
import { makeScore } from '../../../test/fixtures';
import { render } from '../../../test/render';
import { UploadPage } from '../UploadPage';

vi.mock('../../../api/client', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../api/client')>();
  return { ...actual, api: { importSession: vi.fn(), getSessionScoring: vi.fn(), requestScore: vi.fn() } };
});

const mocked = vi.mocked(api, true);

const trajectory = (session_id: string, overrides: Partial<ImportedTrajectory> = {}): ImportedTrajectory => ({
  session_id,
  original_session_id: null,
  status: 'completed',
  stages: 1,
  tool_calls: 4,
  failed_tool_calls: 1,
  inferred_failures: 0,
  recorded_failures: 0,
  trace_format: 'claude-code-jsonl',
  read_generically: false,
  conversation_at: null,
  reasoning_steps: 3,
  final_answer_source: 'last_assistant_text',
  duration_ms: null,
  has_reference: false,
  ...overrides,
});

const imported = (sessions: ImportedTrajectory[]): ImportedSession => ({
  session_id: sessions[0]!.session_id,
  source: 'upload',
  trace_format: 'claude-code-jsonl',
  original_session_id: null,
  status: 'completed',
  stages: 1,
  tool_calls: 4,
  size_bytes: 20480,
  has_reference: false,
  dropped: null,
  failed_tool_calls: 1,
  inferred_failures: 0,
  recorded_failures: 0,
  read_generically: false,
  conversation_at: null,
  masked_values: {},
  reasoning_steps: 3,
  final_answer_source: 'last_assistant_text',
  duration_ms: null,
  skipped: [{ what: "Claude Code 'summary' line(s)", count: 2, reason: 'a title Claude Code writes for its session list' }],
  sessions,
});

const A = 'upload:aaaaaaaa-0000-4000-8000-000000000001';
const B = 'upload:bbbbbbbb-0000-4000-8000-000000000002';
const never = (id: string) => ({ session_id: id, current: null, latest: null, attempts: [] });

const renderPage = () =>
  render(
    <MemoryRouter>
      <UploadPage />
    </MemoryRouter>,
  );

beforeEach(() => {
  vi.resetAllMocks();
  mocked.getSessionScoring.mockImplementation(async (id) => never(id));
});

describe('UploadPage', () => {
  it('uploads a dropped file, shows its format, what was skipped and each session stored, then scores one', async () => {
    mocked.importSession.mockResolvedValue(imported([trajectory(A), trajectory(B, { original_session_id: 'agent-2' })]));
    const queued = makeScore({ session_id: A, status: 'pending', total_score: null });
    mocked.requestScore.mockResolvedValue(queued);
    renderPage();

    const file = new File(['{"type":"user"}\n'], 'session.jsonl');
    fireEvent.drop(screen.getByTestId('upload-drop'), { dataTransfer: { files: [file] } });

    const result = await screen.findByTestId('upload-result');
    expect(mocked.importSession).toHaveBeenCalledWith(file);
    expect(within(result).getByRole('heading', { name: 'session.jsonl' })).toBeInTheDocument();
    expect(within(result).getByTestId('upload-format')).toHaveTextContent('claude-code-jsonl');
    expect(result).toHaveTextContent('2 sessions stored · 20.0 KB');
    expect(within(result).getByTestId('upload-skipped')).toHaveTextContent(
      "2 × Claude Code 'summary' line(s) — a title Claude Code writes for its session list",
    );
    const rows = within(result).getAllByTestId('uploaded-session');
    expect(rows.map((r) => r.getAttribute('data-session-id'))).toEqual([A, B]);
    expect(within(rows[0]!).getByRole('link', { name: 'aaaaaaaa' })).toHaveAttribute('href', `/sessions/${encodeURIComponent(A)}`);
    expect(rows[0]).toHaveTextContent('4 (1 failed)');
    expect(rows[1]).toHaveTextContent('was agent-2');

    await userEvent.click(within(rows[0]!).getByRole('button', { name: 'Score aaaaaaaa' }));
    expect(mocked.requestScore).toHaveBeenCalledWith(A, false);
    expect(await within(rows[0]!).findByTestId('score-badge')).toHaveAttribute('data-state', 'scoring');
    expect(within(rows[1]!).getByRole('button', { name: 'Score bbbbbbbb' })).toBeEnabled();
  });

  it('uploads a chosen file and offers no Score for a session that did not finish', async () => {
    mocked.importSession.mockResolvedValue(imported([trajectory(A, { status: 'in_progress' })]));
    renderPage();

    await userEvent.upload(screen.getByTestId('upload-input'), new File(['{}'], 'run.json'));

    const row = await screen.findByTestId('uploaded-session');
    expect(within(row).queryByRole('button', { name: /^Score/ })).toBeNull();
    expect(row).toHaveTextContent('in_progress: only completed sessions can be scored');
  });

  it("says why the API refused a file, in the API's words", async () => {
    mocked.importSession.mockRejectedValue(new ApiError(400, 'the upload is not a session in a recognised format'));
    renderPage();

    await userEvent.upload(screen.getByTestId('upload-input'), new File(['hello'], 'notes.json'));

    expect(await screen.findByTestId('upload-error')).toHaveTextContent(
      'Could not upload notes.json: the upload is not a session in a recognised format',
    );
    await waitFor(() => expect(screen.getByRole('button', { name: 'Choose files' })).toBeEnabled());
  });
});
