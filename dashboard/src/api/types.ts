// The API's models (layers/core/session_scoring/models/api.py), as the dashboard reads them.

export type ScoreStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

export interface MissingTool {
  tool_name: string;
  rationale: string;
}

export interface AlternativeApproach {
  name: string;
  description: string;
  steps: string[];
}

export interface JudgeInfo {
  provider: string | null;
  model: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  latency_ms: number | null;
  prompt_compacted: boolean;
  prompt_tokens_before: number | null;
  prompt_tokens_after: number | null;
}

export interface SessionScore {
  score_id: string;
  session_id: string;
  criteria_hash: string;
  status: ScoreStatus;
  total_score: number | null;
  score_breakdown: Record<string, number> | null;
  score_reasoning: string | null;
  missing_tools: MissingTool[];
  alternative_approaches: AlternativeApproach[];
  scored_triggered_by: string;
  requested_at: string;
  started_at: string | null;
  scored_at: string | null;
  error_message: string | null;
  is_current_criteria: boolean;
  judge: JudgeInfo;
}

export interface LatestScore {
  score_id: string;
  status: ScoreStatus;
  total_score: number | null;
  is_current_criteria: boolean;
  criteria_hash: string;
}

export interface SessionListItem {
  session_id: string;
  status: string;
  alert_type: string | null;
  agent_type: string | null;
  author: string | null;
  started_at: string | null;
  completed_at: string | null;
  score: LatestScore | null;
}

export interface SessionListPage {
  items: SessionListItem[];
  page: number;
  page_size: number;
  total_items: number;
  total_pages: number;
}

export interface ConversationToolCall {
  server: string | null;
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
  success: boolean;
  error: string | null;
  duration_ms: number | null;
}

export interface ConversationStep {
  kind: string;
  text: string | null;
  tool_call: ConversationToolCall | null;
}

export interface ConversationStage {
  name: string;
  agent: string | null;
  status: string;
  parallel_group: string | null;
  is_chat: boolean;
  steps: ConversationStep[];
  output: string | null;
  error: string | null;
}

export interface SessionDetail {
  session_id: string;
  status: string;
  alert_type: string | null;
  agent_type: string | null;
  author: string | null;
  started_at: string | null;
  completed_at: string | null;
  alert: Record<string, unknown>;
  available_tools: { server: string | null; name: string; description: string | null }[];
  stages: ConversationStage[];
  final_analysis: string | null;
  error: string | null;
}

export interface ScoreBandCount {
  band: string;
  label: string;
  min_score: number;
  max_score: number;
  count: number;
  session_ids: string[];
}

export interface ScoreDistribution {
  criteria_hash: string | null;
  total: number;
  bands: ScoreBandCount[];
}

export interface MissingToolCount {
  tool_name: string;
  count: number;
  session_ids: string[];
}

export interface MissingToolsReport {
  criteria_hash: string | null;
  items: MissingToolCount[];
}

export interface CriteriaUsage {
  criteria_hash: string;
  llm_provider: string | null;
  llm_model: string | null;
  created_at: string;
  completed_sessions: number;
  is_current: boolean;
}
