"""Request and response bodies of the REST API (the contract the dashboard and operators use).

No ``from __future__ import annotations`` here (nor in the API's routers): with it pydantic and FastAPI evaluate
every field and parameter annotation from its string, a ``compile()`` each, a good part of the API's cold init.
"""

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.models.request import RequestBody
from session_scoring.models.scores import Outcome, ScoreStatus


class ResponseModel(BaseModel):
    """The base of every API answer: frozen, and every field, defaulted or not, required in the schema (answers
    always carry it, so generated clients need no `?`)."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)


class ScoreRequest(RequestBody):
    """Body of ``POST .../score``; the body is optional. Strict: "yes", "1" or 1 must not queue paid work by
    accident; only JSON true/false."""

    force_rescore: bool = Field(
        default=False, description="Score again even when a completed score exists (keeps the old one)."
    )


class MissingTool(ResponseModel):
    tool_name: str = Field(description="The tool's name as the judge wrote it")
    rationale: str
    canonical_name: str = Field(
        description="What the missing-tools analytics count it as: lower case, whitespace and MCP server prefix gone, "
        "matched to the session's available tools when the verdict was stored; two spellings of one tool share it"
    )


class AlternativeApproach(ResponseModel):
    name: str
    description: str
    steps: list[str]


class JudgeInfo(ResponseModel):
    """Who judged and what it cost."""

    provider: str | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    latency_ms: int | None = None
    prompt_compacted: bool = False
    prompt_tokens_before: int | None = None
    prompt_tokens_after: int | None = None
    judging_ms: int | None = Field(
        default=None,
        description="The whole judging of the delivery that completed the attempt, every retry and wait included "
        "(latency_ms is the successful call alone)",
    )
    estimated_cost_usd: float | None = Field(
        default=None, description="The verdict's tokens priced with the pricing table; null when the model has none"
    )


class JurorInfo(ResponseModel):
    """One juror of a jury (scoring.jury): who it was and what it gave, or why it gave nothing."""

    provider: str = Field(description="The juror's judge provider, e.g. google")
    model: str
    name: str | None = Field(default=None, description="The name the criteria file gave it, e.g. google-default")
    total: int | None = Field(default=None, description="The juror's total; null when it failed or was left out")
    failed: str | None = Field(default=None, description="Why the juror gave no verdict (every retry used)")
    excluded: str | None = Field(
        default=None, description="Why the juror was left out (exclude_same_family: of the agent's model family)"
    )
    same_family_as_agent: bool = Field(
        default=False, description="The juror is of the agent's model family (self-preference bias)"
    )


class TotalSpread(ResponseModel):
    """How far apart the verdicts' totals were."""

    min: int
    max: int
    stdev: float = Field(description="The sample standard deviation of the totals (0 for one verdict)")


class JuryInfo(ResponseModel):
    """A jury's score: every juror, the quorum its score needed and how its verdicts' totals spread. The stored
    total is the verdicts' median."""

    jurors: list[JurorInfo] = Field(description="Every juror, in the criteria file's order")
    quorum: int = Field(description="The verdicts the score needed")
    verdicts: int = Field(description="The verdicts the score was made from")
    total_spread: TotalSpread


class SessionFactsInfo(ResponseModel):
    """The session as it was when the attempt was created (what the fleet query filters and sorts by)."""

    agent: str | None = Field(default=None, description="The agent (or chain) that ran the investigation")
    alert_type: str | None = None
    started_at: datetime | None = Field(default=None, description="When the session started")
    ended_at: datetime | None = Field(default=None, description="When the session ended")
    stages: int | None = Field(default=None, description="Stages of the chain; null when only a summary was read")
    tool_calls: int | None = Field(default=None, description="Tool calls made; null when only a summary was read")
    source: str | None = Field(default=None, description="Where the session came from (e.g. file, tarsy, upload)")
    captured_at: datetime | None = Field(default=None, description="When this snapshot was taken")


class WriteBackInfo(ResponseModel):
    """The completed score's write-back to the trace it came from (a Phoenix span annotation, an MLflow assessment)."""

    sink: str = Field(
        description="The trace store written to: phoenix or mlflow (the configured source type when write-back was "
        "asked of a source that is not a trace store, which fails it)"
    )
    status: Literal["writing", "written", "retrying", "failed"] = Field(
        description="writing: under way; written: done; retrying: the last try failed and the job comes back to try "
        "again; failed: given up (the store refused it, or every delivery was used). The score stays completed."
    )
    tries: int
    detail: str | None = Field(default=None, description="What was written")
    error_message: str | None = Field(default=None, description="Why the last try failed")
    updated_at: datetime
    written_at: datetime | None = None


class DimensionScore(ResponseModel):
    """One dimension of a score as its rubric defines it: the points given, out of the dimension's own maximum."""

    key: str = Field(description="The dimension's key in score_breakdown")
    label: str
    points: int
    max_points: int


class CeilingInfo(ResponseModel):
    """The rubric's ceiling that applied to a score: the judge's answer and the totals that answer allows."""

    field: str = Field(description="The verdict field, e.g. conclusion")
    label: str
    value: str = Field(description="The judge's answer, e.g. correct")
    min_score: int
    max_score: int
    description: str = Field(description="What the answer means, as the rubric says")


class Claim(ResponseModel):
    """A claim of the verdict and the timeline event (stage or step number of the session) it cites."""

    claim: str
    event: str


class SessionScore(ResponseModel):
    """One scoring attempt. Score fields are null until ``status`` is ``completed``."""

    score_id: UUID
    session_id: str
    criteria_hash: str
    status: ScoreStatus
    total_score: int | None = None
    score_breakdown: dict[str, int] | None = Field(
        default=None,
        description="Points per dimension of the score's rubric, keyed by dimension (each within its maximum: see "
        "dimensions, or GET /criteria/{criteria_hash})",
    )
    rubric: str | None = Field(default=None, description="The name of the rubric the score was judged by")
    dimensions: list[DimensionScore] | None = Field(
        default=None, description="score_breakdown with each dimension's label and maximum, in the rubric's order"
    )
    ceiling: CeilingInfo | None = Field(
        default=None, description="The rubric's ceiling that applied (null: the rubric has none, or not completed)"
    )
    failure_tags: list[str] = Field(
        default_factory=list,
        description="Failure tags from the rubric's closed vocabulary (empty: none, or none given)",
    )
    claims: list[Claim] = Field(default_factory=list, description="The verdict's claims with the events they cite")
    score_reasoning: str | None = None
    missing_tools: list[MissingTool] = Field(default_factory=list)
    alternative_approaches: list[AlternativeApproach] = Field(default_factory=list)
    scored_triggered_by: str
    requested_at: datetime
    started_at: datetime | None = None
    scored_at: datetime | None = None
    error_message: str | None = None
    is_current_criteria: bool
    session_facts: SessionFactsInfo | None = Field(
        default=None,
        description="The session as it was when the attempt was created; null for an older attempt not backfilled "
        "(session-scoring facts backfill)",
    )
    judge: JudgeInfo
    score_spread: dict[str, Any] | None = Field(
        default=None,
        description="Ensemble scoring (scoring.samples > 1) or a jury (scoring.jury): the samples' or jurors' totals "
        "and the min, max and standard deviation of the total and of each dimension; a jury's jurors (total, failed, "
        "excluded, same_family_as_agent) and quorum; self_preference when the judge is of the agent's model family; "
        "null for a single verdict without any of these",
    )
    jury: JuryInfo | None = Field(
        default=None,
        description="A jury's completed score (scoring.jury): each juror's total, or why it failed or was left out, "
        "the quorum and the spread of the totals; null for a single judge or an ensemble (a jury below its quorum "
        "fails, its error_message naming each juror's reason)",
    )
    run_id: UUID | None = Field(
        default=None, description="The scoring run this attempt belongs to; null for a single request"
    )
    writeback: WriteBackInfo | None = Field(
        default=None,
        description="The write-back of the completed score to its trace store (SCORING_WRITEBACK); null when none "
        "started: none configured, an uploaded session, or the score is not completed",
    )
    outcome: Outcome | None = Field(
        default=None,
        description="Whether the conclusion found the session's reference root cause: found, partly_found, missed, "
        "or no_reference (none was given); null until completed, and for a score made before outcomes were judged",
    )
    outcome_reason: str | None = Field(default=None, description="The judge's one sentence on the outcome")
    reference_source: Literal["label", "import", "source"] | None = Field(
        default=None,
        description="Where the reference the judge was given came from: label (the labels API), import (the uploaded "
        "document), source (the session source); null when it was given none",
    )
    masked_values: dict[str, int] | None = Field(
        default=None,
        description="How many secrets the masking step replaced in the session before the judge saw it, by group "
        "(docs/masking.md); {} when none; null until completed, and for a score made before masking existed",
    )


class SessionScoring(ResponseModel):
    """A session's scores as its page shows them: the score under the criteria in force first, every attempt
    after. Answered for a session never scored too (``current`` and ``latest`` null, no attempts), never a 404."""

    session_id: str
    current: SessionScore | None = Field(
        description="The latest completed attempt under the criteria in force: the score the Scores page, the "
        "analytics and the judge-human agreement use; null when there is none"
    )
    latest: SessionScore | None = Field(
        description="The latest attempt under any criteria and in any status (what follows a queued or running "
        "score); null when never scored"
    )
    attempts: list[SessionScore] = Field(description="Every attempt, newest first, under every criteria")


class LatestScore(ResponseModel):
    """A session's score as the session list shows it: its latest completed attempt under the criteria in scope (the
    score the session's page shows), else its latest attempt in any status."""

    score_id: UUID
    status: ScoreStatus
    total_score: int | None
    is_current_criteria: bool
    criteria_hash: str
    later_attempt_status: ScoreStatus | None = Field(
        default=None,
        description="The status of an attempt made after this completed score that did not complete (pending, "
        "in_progress, failed or cancelled, e.g. cancelled with its run): shown beside the score, which stays the "
        "session's; null when the score is the latest attempt",
    )


class SessionInfo(ResponseModel):
    """What every view shows about a session."""

    session_id: str
    status: str = Field(description="The session's status at its source")
    alert_type: str | None = None
    agent_type: str | None = None
    author: str | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    source: str | None = Field(
        default=None, description="Where the session comes from: the configured source or 'upload'"
    )
    title: str | None = Field(
        default=None,
        description="A line naming the session: an upload's task (its first user message, at most 200 characters), "
        "else its alert type; null when neither is known",
    )


class SessionSearchHit(ResponseModel):
    """A session the search text was found in."""

    session_id: str
    title: str | None = Field(description="An upload's task, else the alert type; null when neither is known")
    alert_type: str | None = None
    agent: str | None = None
    source: str | None = Field(default=None, description="'upload', or the source the scored session came from")
    matched: str = Field(description="Where the text was found: id, agent, alert_type or title")


class SessionSearchResult(ResponseModel):
    """``GET /search``: the sessions whose id, title, agent or alert type contains the text, best match first (the id
    itself, an id starting with the text, then the rest, newest first)."""

    query: str
    items: list[SessionSearchHit]
    source_unavailable: bool = Field(
        default=False,
        description="The session source could not be read: only uploads and scored sessions were searched, so a "
        "session never scored may be missing; try again",
    )


class SessionListItem(SessionInfo):
    score: LatestScore | None = Field(default=None, description="Latest scoring attempt; null when never scored")


class SkippedSessionInfo(ResponseModel):
    """A session document the source could not read, and why."""

    origin: str = Field(description="The file (or document) that was skipped")
    error: str = Field(description="What was wrong with it and what was expected")


class SessionListScan(ResponseModel):
    """How much of the source an unscored list read for this page (``scored=unscored`` only)."""

    source_pages_read: int = Field(description="Pages of the source read for this answer")
    source_page_limit: int = Field(description="The most source pages one request reads")
    limit_reached: bool = Field(
        description="The page stopped at the limit before it was full: more unscored sessions may follow; "
        "continue with next_cursor"
    )


class SessionListPage(ResponseModel):
    """One page of the sessions list. With ``scored=unscored`` the page is cut from the source's list a few source
    pages at a time: continue with ``next_cursor`` (page numbers and totals are then unknown, null)."""

    items: list[SessionListItem]
    page: int
    page_size: int
    total_items: int | None = Field(description="Sessions matching the filters; null when unknown (unscored lists)")
    total_pages: int | None = Field(description="Pages of page_size; null when unknown (unscored lists)")
    skipped: list[SkippedSessionInfo] = Field(
        default_factory=list, description="Documents the source could not read as sessions (not counted in the total)"
    )
    next_cursor: str | None = Field(
        default=None,
        description="scored=unscored: pass as cursor (with the same filters) for the next page; null at the source's "
        "end, and always null for the other lists (they page by number)",
    )
    scan: SessionListScan | None = Field(
        default=None, description="scored=unscored: how much of the source this answer read; null otherwise"
    )
    criteria_hash: str | None = Field(
        default=None,
        description="The criteria the rows' scores are under: the current criteria's hash with criteria=current; "
        "null with criteria=any (each session's latest completed score under any criteria, its criteria on the row)",
    )


class RubricDimensionInfo(ResponseModel):
    key: str
    label: str
    max_points: int
    description: str


class RubricCeilingValue(ResponseModel):
    value: str
    min_score: int
    max_score: int
    description: str


class RubricCeilingInfo(ResponseModel):
    field: str
    label: str
    description: str
    values: list[RubricCeilingValue]


class RubricFailureTag(ResponseModel):
    tag: str
    description: str


class RubricInfo(ResponseModel):
    """What a criteria's scores mean: the rubric's dimensions with their labels and maxima, how the total is made,
    its ceiling and its failure-tag vocabulary."""

    name: str
    description: str
    total: Literal["sum", "holistic"] = Field(
        description="sum: the dimensions' sum scaled to 0-100; holistic: the judge's 0-100 total, the dimensions its "
        "sub-assessments"
    )
    dimensions: list[RubricDimensionInfo]
    ceiling: RubricCeilingInfo | None = None
    failure_tags: list[RubricFailureTag] = Field(default_factory=list)
    claims_cite_events: bool = False


class CriteriaDefinition(ResponseModel):
    criteria_hash: str
    llm_provider: str
    llm_model: str
    criteria_content: dict[str, Any]
    created_at: datetime | None = None
    rubric: RubricInfo | None = Field(
        default=None, description="The rubric its scores were judged by (the default rubric for older criteria)"
    )


class ScoreBand(ResponseModel):
    band: str
    label: str
    min_score: int
    max_score: int
    count: int
    session_ids: list[str] = Field(
        default_factory=list, description="Sessions in the band, most recently scored first (at most 50)"
    )


class ScoreDistribution(ResponseModel):
    criteria_hash: str | None
    total: int
    bands: list[ScoreBand]


class MissingToolTrendPoint(ResponseModel):
    bucket_start: datetime = Field(description="Start of the day or week (Monday), UTC")
    count: int = Field(description="Sessions whose latest completed score names the tool, scored in this bucket")


class MissingToolAgentCount(ResponseModel):
    agent: str | None = Field(description="The session's agent (session facts); null when the score has none")
    count: int


class MissingToolCount(ResponseModel):
    tool_name: str = Field(
        description="The canonical name counted (lower case, MCP server prefix gone, matched to "
        "the session's available tools)"
    )
    count: int = Field(description="Sessions whose latest completed score names the tool missing")
    session_ids: list[str] = Field(description="Those sessions, most recently scored first (at most 50)")
    spellings: list[str] = Field(
        default_factory=list, description="The names as the judge wrote them, most frequent first (at most 10)"
    )
    trend: list[MissingToolTrendPoint] = Field(
        default_factory=list, description="Sessions per bucket, oldest first, the last `periods` buckets (zeros too)"
    )
    by_agent: list[MissingToolAgentCount] = Field(
        default_factory=list, description="Those sessions per agent, most first (ties by agent)"
    )
    available_in_sessions: int = Field(
        default=0, description="How many of those sessions had the tool available (unused rather than not built)"
    )


class MissingToolsReport(ResponseModel):
    criteria_hash: str | None
    bucket: str = Field(default="week", description="The trend's bucket: day or week (weeks start on Monday, UTC)")
    periods: int = Field(default=12, description="Buckets in each trend, ending with the current one")
    items: list[MissingToolCount]


class FailureTagCount(ResponseModel):
    tag: str = Field(description="A failure tag of the rubric's closed vocabulary")
    description: str | None = Field(default=None, description="What the tag means, as the criteria's rubric says")
    count: int = Field(description="Sessions whose latest completed score has the tag")
    trend: list[MissingToolTrendPoint] = Field(
        default_factory=list, description="Sessions per bucket, oldest first, the last `periods` buckets (zeros too)"
    )


class FailureTagsReport(ResponseModel):
    """How often each failure tag was given (latest completed score of each session under the criteria)."""

    criteria_hash: str | None
    bucket: str = Field(default="week", description="The trend's bucket: day or week (weeks start on Monday, UTC)")
    periods: int = Field(default=12, description="Buckets in each trend, ending with the current one")
    items: list[FailureTagCount]


class FailureTagSession(ResponseModel):
    session_id: str
    score_id: UUID
    total_score: int
    scored_at: datetime


class FailureTagSessionsPage(ResponseModel):
    """Sessions whose latest completed score has the tag, most recently scored first."""

    tag: str
    criteria_hash: str | None
    page: int
    page_size: int
    items: list[FailureTagSession]


class OutcomeSummary(ResponseModel):
    """How often the latest scores of a group found their reference root cause, and whether the method score
    separates the sessions that found it from those that missed it."""

    agent: str | None = Field(description="The agent (session facts); null in the overall figures, or when unknown")
    alert_type: str | None = Field(description="The alert type; null in the overall figures, or when unknown")
    sessions: int = Field(description="Latest scores judged for an outcome (no_reference included)")
    with_reference: int = Field(description="Of those, the ones judged against a reference root cause")
    found: int
    partly_found: int
    missed: int
    no_reference: int
    found_share: float | None = Field(description="found / with_reference (0-1); null without a reference")
    mean_score_found: float | None = Field(description="Mean total score of the sessions that found it")
    mean_score_partly_found: float | None
    mean_score_missed: float | None = Field(description="Mean total score of the sessions that missed it")
    mean_score_no_reference: float | None
    score_gap: float | None = Field(
        description="mean_score_found - mean_score_missed: positive when the method score is higher for the sessions "
        "that got the cause right; null unless both are known"
    )


class OutcomeReport(ResponseModel):
    """``GET /analytics/outcome``: the outcomes of each session's latest completed score under the criteria, overall
    and per agent and alert type. Scores made before outcomes were judged are not counted."""

    criteria_hash: str | None
    overall: OutcomeSummary
    groups: list[OutcomeSummary] = Field(
        description="Per agent and alert type, most sessions with a reference first (then by agent, alert type; "
        "unknown last)"
    )


class CriteriaUsage(ResponseModel):
    """A stored criteria definition and how many sessions it has scored (the analytics filter offers these)."""

    criteria_hash: str
    llm_provider: str | None = None
    llm_model: str | None = None
    created_at: datetime
    completed_sessions: int
    is_current: bool


class ConversationToolCall(ResponseModel):
    server: str | None = None
    name: str
    arguments: dict[str, Any]
    result: Any = None
    success: bool
    error: str | None = None
    duration_ms: int | None = None


class ConversationStep(ResponseModel):
    kind: str = Field(description="reasoning, tool_call, answer or message")
    text: str | None = None
    tool_call: ConversationToolCall | None = None


class ConversationStage(ResponseModel):
    name: str
    agent: str | None = None
    status: str
    parallel_group: str | None = None
    is_chat: bool = False
    steps: list[ConversationStep]
    output: str | None = None
    error: str | None = None


class AvailableToolInfo(ResponseModel):
    server: str | None = None
    name: str
    description: str | None = None


class SessionDetail(SessionInfo):
    """A session as the dashboard's conversation view shows it: the alert, each stage's steps, the final analysis."""

    alert: dict[str, Any]
    available_tools: list[AvailableToolInfo]
    stages: list[ConversationStage]
    final_analysis: str | None = None
    error: str | None = None
    recording_author: str | None = Field(
        default=None,
        description="An upload's author as its document names it (unverified, the document's own claim); `author` is "
        "always who uploaded it. Null for other sources and documents that name none.",
    )
    steps_total: int = Field(default=0, description="Steps of every stage, shown here or not")
    steps_shown: int = Field(
        default=0,
        description="Steps in `stages` here: the first page, bounded in size (the first steps in order, stage by "
        "stage); a large session's others are read by pages from `GET .../sessions/{session_id}/steps`",
    )
    next_steps_offset: int | None = Field(
        default=None, description="The `offset` of the steps page that follows the ones shown; null when all are shown"
    )


class PagedConversationStep(ResponseModel):
    """One step of a session read by pages: the stage it belongs to (its index in `SessionDetail.stages`) and its own
    position in that stage."""

    stage_index: int
    step_index: int
    step: ConversationStep


class SessionStepsPage(ResponseModel):
    """``GET /api/v1/scoring/sessions/{session_id}/steps``: a page of a session's steps, across its stages in order."""

    session_id: str
    offset: int
    steps: list[PagedConversationStep]
    steps_total: int
    next_offset: int | None = Field(description="The offset of the next page; null after the last step")


class HealthStatus(ResponseModel):
    """The public ``GET /health``: the status alone (the details are for authenticated callers)."""

    status: Literal["ok", "degraded"] = Field(
        description="ok, or degraded when the judge's circuit is open or the queue is unreachable"
    )


class Health(HealthStatus):
    """``GET /api/v1/scoring/health/details``: the status and why, with what is running."""

    problems: list[str] = Field(default_factory=list, description="What makes the service degraded, readably")
    judge_circuit: str | None = Field(
        default=None, description="CLOSED, OPEN, HALF_OPEN, or unknown; null without a breaker table"
    )
    queued_jobs: int | None = Field(default=None, description="Jobs waiting or in flight in the scoring queue")
    version: str
    scoring_enabled: bool
    criteria_hash: str | None = None
    llm_provider: str | None = None
    llm_model: str | None = None


class ErrorBody(ResponseModel):
    """Every error response: what went wrong (``detail``) and a stable ``code``."""

    code: str
    detail: str | list[Any]


class SkippedContentInfo(ResponseModel):
    """Content of an uploaded document the transcript does not show."""

    what: str = Field(description="What was skipped, e.g. \"Claude Code 'queue-operation' line(s)\"")
    count: int
    reason: str = Field(description="Why it is not shown")


class ImportedTrajectory(ResponseModel):
    """One session stored from an upload (a document holding many trajectories stores one per trajectory)."""

    session_id: str = Field(description="The new id, 'upload:<uuid>'")
    original_session_id: str | None = Field(default=None, description="The id the trajectory itself carried, if any")
    status: str
    stages: int
    tool_calls: int
    failed_tool_calls: int = Field(description="Calls that failed, recorded by the agent's framework or inferred")
    inferred_failures: int = Field(description="Of those, the calls whose output reports the failure in its text")
    recorded_failures: int = Field(
        default=0, description="Of those, the calls the agent's framework itself recorded as failed"
    )
    trace_format: str | None = Field(default=None, description="The reader that read this trajectory")
    read_generically: bool = Field(
        default=False,
        description="No reader claimed the document: the generic fallback found the conversation and read it",
    )
    conversation_at: str | None = Field(
        default=None, description="Where the generic fallback found the conversation (a JSON path); null otherwise"
    )
    reasoning_steps: int = Field(description="Reasoning steps (thinking, reasoning items, narration before a call)")
    final_answer_source: str | None = Field(
        default=None,
        description="Where the final analysis was taken from: document, last_assistant_text, submit_tool:<name>, "
        "submit_command, agent_output, or the field beside the conversation a reader took it from (info.submission, "
        "exit_message, finish action, output.choices, response.choices); null when none was found",
    )
    duration_ms: int | None = Field(default=None, description="From the first to the last timestamp, when it has them")
    has_reference: bool = Field(
        default=False, description="The document carries the session's known root cause (reference_root_cause)"
    )


class ImportedSession(ResponseModel):
    """Answer of ``POST .../sessions:import``: the stored session's new id and what was read from the upload.

    A document holding many trajectories stores each as its own session: the top-level fields describe the first,
    ``sessions`` lists them all."""

    session_id: str = Field(description="The new id, 'upload:<uuid>'; score it with POST .../sessions/{id}/score")
    source: str = Field(description="Always 'upload'")
    trace_format: str = Field(description="The format recognised (see docs/trace-formats.md)")
    original_session_id: str | None = Field(default=None, description="The id the document itself carried, if any")
    status: str
    stages: int
    tool_calls: int
    size_bytes: int
    dropped: str | None = Field(default=None, description="What the importer could not show, as the transcript says")
    failed_tool_calls: int = Field(
        default=0, description="Calls that failed, recorded by the agent's framework or inferred from their output"
    )
    inferred_failures: int = Field(default=0, description="Of those, the calls whose output reports the failure")
    recorded_failures: int = Field(
        default=0, description="Of those, the calls the agent's framework itself recorded as failed"
    )
    read_generically: bool = Field(
        default=False,
        description="No reader claimed the document: the generic fallback found the conversation (where: "
        "conversation_at) and read it with the common rules",
    )
    conversation_at: str | None = Field(
        default=None, description="Where the generic fallback found the conversation (a JSON path); null otherwise"
    )
    reasoning_steps: int = Field(default=0, description="Reasoning steps of the (first) session")
    final_answer_source: str | None = Field(
        default=None,
        description="Where the final analysis was taken from: document, last_assistant_text, submit_tool:<name>, "
        "submit_command, agent_output, or the field beside the conversation a reader took it from (info.submission, "
        "exit_message, finish action, output.choices, response.choices); null when none was found",
    )
    duration_ms: int | None = Field(default=None, description="From the first to the last timestamp, when it has them")
    skipped: list[SkippedContentInfo] = Field(
        default_factory=list, description="What the document held that the transcript does not show, and why"
    )
    has_reference: bool = Field(
        default=False,
        description="The (first) session's document carries its known root cause (reference_root_cause), which the "
        "judge compares the conclusion with",
    )
    sessions: list[ImportedTrajectory] = Field(
        default_factory=list,
        description="Every session stored from this upload, in document order (one for a single-session document)",
    )
    masked_values: dict[str, int] = Field(
        default_factory=dict,
        description="How many secrets the masking step replaced in the (first) session before it was stored, by "
        "group (docs/masking.md); empty when none",
    )


class FleetScore(ResponseModel):
    """One attempt in the fleet query: its score, band, judge, missing tools and the session facts it was judged on."""

    score_id: UUID
    session_id: str
    criteria_hash: str
    is_current_criteria: bool
    status: ScoreStatus
    total_score: int | None = None
    band: str | None = Field(default=None, description="The score band of the total (null until completed)")
    score_breakdown: dict[str, int] | None = None
    requested_at: datetime
    scored_at: datetime | None = None
    judge_provider: str | None = None
    judge_model: str | None = None
    missing_tools: list[str] = Field(default_factory=list, description="Tool names the judge said were missing")
    session_facts: SessionFactsInfo | None = None
    outcome: Outcome | None = Field(
        default=None,
        description="found, partly_found, missed or no_reference; null before completion and for scores made before "
        "outcomes were judged",
    )
    title: str | None = Field(
        default=None,
        description="An upload's title (its task, as the sessions list names it); null for the source's own "
        "sessions, which the list names by their alert type (JSON pages only)",
    )


class FleetScorePage(ResponseModel):
    """One page of ``GET /scores``; pass ``next_cursor`` as ``cursor`` (with the same filters and sort) for the next."""

    items: list[FleetScore]
    next_cursor: str | None = Field(default=None, description="Null on the last page")
    criteria_hash: str | None = Field(description="The criteria filtered on; null for any")
    sort: str
    order: str
    limit: int
    total_items: int | None = Field(
        default=None, description="Rows matching the filters on every page (with_total=true); null when not asked"
    )


class FilterValue(ResponseModel):
    value: str
    sessions: int = Field(description="Sessions whose latest completed score (under the criteria) has this value")


class FilterValues(ResponseModel):
    """``GET /scores/values``: what a text filter of the fleet query can be set to, the most frequent first."""

    field: str = Field(description="agent, alert_type or missing_tool")
    criteria_hash: str | None = Field(description="The criteria counted; null for any")
    values: list[FilterValue]


class MissingToolSession(ResponseModel):
    """A session whose latest completed score names the tool missing, with the judge's words."""

    session_id: str
    score_id: UUID
    total_score: int
    band: str
    scored_at: datetime
    tool_name: str = Field(description="The tool's name as the judge wrote it")
    rationale: str
    agent: str | None = Field(default=None, description="The session's agent (from the session facts)")


class MissingToolSessionsPage(ResponseModel):
    tool_name: str = Field(description="The name asked for")
    canonical_name: str = Field(description="What it is matched as: lower case, whitespace and MCP server prefix gone")
    criteria_hash: str | None
    items: list[MissingToolSession]
    next_cursor: str | None = Field(default=None, description="Null on the last page")


class TrainingExportJobRequest(RequestBody):
    """Body of ``POST /exports/training``: the same selection as the streamed ``GET /exports/training``."""

    min_score: int = Field(default=85, ge=0, le=100, description="Lowest total score exported")
    criteria_hash: str = Field(
        default="current", max_length=64, description="'current' (default), 'any', or a criteria hash"
    )
    format: str = Field(default="openai-chat", max_length=32, description="openai-chat or normalized")


class ExportJob(ResponseModel):
    """An export job: queued, running, completed (with a presigned download URL) or failed (with why)."""

    export_id: UUID
    kind: str = Field(description="What is exported (training)")
    status: str = Field(description="queued, running, completed or failed")
    min_score: int
    criteria_hash: str | None = Field(description="The criteria resolved when the job was asked for; null for any")
    format: str
    rows_written: int | None = Field(default=None, description="Lines written (sessions exported), once completed")
    bytes_written: int | None = Field(default=None, description="Size of the exported file, once completed")
    error: str | None = Field(default=None, description="Why the export failed, and what to do")
    requested_by: str
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    download_url: str | None = Field(
        default=None, description="A presigned GET URL of the exported JSON Lines file, when completed"
    )
    expires_at: datetime | None = Field(default=None, description="When download_url stops working")
