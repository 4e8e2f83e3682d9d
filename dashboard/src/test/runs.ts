import type { DryRunResult, ScoringRun } from '../api/generated/schema';

export function makeRun(overrides: Partial<ScoringRun> = {}): ScoringRun {
  return {
    run_id: '11111111-2222-4333-8444-555555555555',
    name: 're-score after the prompt change',
    status: 'running',
    mode: 'online',
    selection: { which: 'not_current_criteria' },
    max_sessions: 200,
    max_cost_usd: 25,
    criteria_hash: 'c'.repeat(64),
    judge_model: 'claude-sonnet-4-6',
    started_by: 'alice@example.com',
    created_at: '2026-11-20T09:00:00Z',
    started_at: '2026-11-20T09:00:01Z',
    planned_at: '2026-11-20T09:00:02Z',
    finished_at: null,
    sessions_read: 4,
    counts: { pending: 1, in_progress: 1, completed: 1, failed: 0, cancelled: 0, skipped: 1, skipped_by_reason: { not_completed: 1 } },
    usage: { input_tokens: 12000, output_tokens: 900, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0.05 },
    estimated_cost_per_session_usd: 0.05,
    eta_seconds: 90,
    stop_reason: null,
    error_message: null,
    ...overrides,
  };
}

export function makeEstimate(overrides: Partial<DryRunResult> = {}): DryRunResult {
  return {
    sessions_selected: 3,
    sessions_skipped: 1,
    skipped_by_reason: { not_completed: 1 },
    sessions_read: 4,
    sample_session_ids: ['s-1', 's-2', 's-3'],
    stop_reason: null,
    estimate: {
      estimated_input_tokens: 36000,
      estimated_output_tokens: 4500,
      estimated_cost_usd: 0.1755,
      estimated_duration_seconds: 45,
      per_session_input_tokens: 12000,
      per_session_output_tokens: 1500,
      method: 'input tokens from the rendered prompt of 3 sessions; output tokens: 1,500 (no completed scores yet)',
    },
    ...overrides,
  };
}
