import type { CriteriaDefinition, ScoreDistribution, SessionScore } from '../api/generated/schema';
import type { RubricDimension } from '../shared/dimensions';

export function makeScore(overrides: Partial<SessionScore> = {}): SessionScore {
  return {
    score_id: '00000000-0000-4000-8000-000000000001',
    session_id: 'sess-1',
    criteria_hash: 'a'.repeat(64),
    status: 'completed',
    total_score: 67,
    score_breakdown: { logical_flow: 15, consistency: 18, tool_relevance: 14, synthesis_quality: 20 },
    rubric: 'methodology',
    dimensions: [
      { key: 'logical_flow', label: 'Logical flow', points: 15, max_points: 25 },
      { key: 'consistency', label: 'Consistency', points: 18, max_points: 25 },
      { key: 'tool_relevance', label: 'Tool relevance', points: 14, max_points: 25 },
      { key: 'synthesis_quality', label: 'Synthesis quality', points: 20, max_points: 25 },
    ],
    ceiling: null,
    failure_tags: [],
    claims: [],
    masked_values: null,
    score_reasoning: 'The agent **jumped** to a conclusion.',
    missing_tools: [],
    alternative_approaches: [],
    scored_triggered_by: 'alice@example.com',
    requested_at: '2026-11-20T09:00:00Z',
    started_at: '2026-11-20T09:00:01Z',
    scored_at: '2026-11-20T09:00:30Z',
    error_message: null,
    is_current_criteria: true,
    session_facts: null,
    judge: {
      provider: 'anthropic',
      model: 'claude-sonnet-4-6',
      input_tokens: 12000,
      output_tokens: 900,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      latency_ms: 8200,
      prompt_compacted: false,
      prompt_tokens_before: null,
      prompt_tokens_after: null,
      judging_ms: 9100,
      estimated_cost_usd: 0.0495,
    },
    score_spread: null,
    jury: null,
    run_id: null,
    writeback: null,
    outcome: 'no_reference',
    outcome_reason: 'no reference root cause was given for this session',
    reference_source: null,
    ...overrides,
  };
}

/** The bands as the API's score distribution describes them (layers/core: the design's five bands). */
export const API_BANDS: [string, string, number, number][] = [
  ['failed', 'Failed', 0, 44],
  ['weak', 'Weak', 45, 59],
  ['adequate', 'Adequate', 60, 74],
  ['good', 'Good', 75, 89],
  ['near_perfect', 'Near-perfect', 90, 100],
];

/** A score-distribution response with these counts (and session ids) per band. */
export function makeDistribution(counts: number[] = [0, 0, 0, 0, 0], ids: string[][] = []): ScoreDistribution {
  return {
    criteria_hash: null,
    total: counts.reduce((a, b) => a + b, 0),
    bands: API_BANDS.map(([band, label, min_score, max_score], i) => ({
      band,
      label,
      min_score,
      max_score,
      count: counts[i] ?? 0,
      session_ids: ids[i] ?? [],
    })),
  };
}

/** The default rubric's dimensions (config/rubrics/methodology.yaml: four of 25 points). */
export const METHODOLOGY_DIMENSIONS: RubricDimension[] = [
  { key: 'logical_flow', label: 'Logical flow', max_points: 25 },
  { key: 'consistency', label: 'Consistency', max_points: 25 },
  { key: 'tool_relevance', label: 'Tool relevance', max_points: 25 },
  { key: 'synthesis_quality', label: 'Synthesis quality', max_points: 25 },
];

/** A three-dimension rubric of unequal maxima (as config/rubrics/triage.yaml, other maxima: 10, 30, 60). */
export const TRIAGE_DIMENSIONS: RubricDimension[] = [
  { key: 'evidence', label: 'Evidence', max_points: 10 },
  { key: 'diagnosis', label: 'Diagnosis', max_points: 30 },
  { key: 'next_steps', label: 'Next steps', max_points: 60 },
];

/** A criteria definition as GET /criteria/{hash} answers it, with a rubric of these dimensions. */
export function makeCriteria(criteriaHash: string, dimensions: RubricDimension[] = METHODOLOGY_DIMENSIONS, name = 'methodology'): CriteriaDefinition {
  return {
    criteria_hash: criteriaHash,
    llm_provider: 'anthropic',
    llm_model: 'claude-sonnet-4-6',
    criteria_content: {},
    created_at: '2026-11-01T00:00:00Z',
    rubric: {
      name,
      description: '',
      total: 'sum',
      dimensions: dimensions.map((d) => ({ ...d, description: `How well: ${d.label}` })),
      ceiling: null,
      failure_tags: [],
      claims_cite_events: false,
    },
  };
}
