"""The judge's input and the judge under a rate limit, as figures in the ``bench_table`` (asserts nothing about speed).

- input tokens: what the Claude judge sends (system, messages and the ``output_config`` schema, estimated the same
  way as the input budget) for each sample session, against the raw session file plus the rubric (the floor);
- render time and fit: a ~25k-token, a ~1M-token and a 2,400-tool-call session within the default input budget and
  within 50k tokens;
- goodput: scorers (the real ``JobService``, ``Scorer`` and retry policy) against a fake judge limited to R requests per
  simulated minute (token bucket, 429 with ``retry-after`` beyond it), with dead letters: hand-backs counted against
  the queue's receives (before) and deferred as fresh copies (now); time is simulated, so minutes pass in
  milliseconds.
"""

from __future__ import annotations

import heapq
import json
import math
import re
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.criteria import ScoringConfig, load_scoring_config
from session_scoring.configuration.settings import Settings
from session_scoring.errors import JudgeTransientError, PromptTooLargeError
from session_scoring.judge.base import JudgeRequest
from session_scoring.judge.factory import build_judge
from session_scoring.judge.rendering import build_prompt, estimate_tokens
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import ClaimResult, PromptStats
from session_scoring.models.session import Session, SessionPage
from session_scoring.services.jobs import JobService
from session_scoring.services.scorer import Scorer, ScorerPolicy
from session_scoring.sources.documents import parse_session_document
from tests.benchmarks.conftest import BenchTable
from tests.benchmarks.test_rendering_bench import _session_of
from tests.conftest import FAILING_TOOLS_ID, SAMPLES, SHALLOW_ID, THOROUGH_ID
from tests.support.fake_claude import SAMPLE_VERDICT
from tests.support.long_session import long_session_document

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
CONFIG = Path(__file__).resolve().parents[2] / "config" / "scoring_config.yaml"


def _config(provider: str = "anthropic") -> ScoringConfig:
    return load_scoring_config(CONFIG, {"SCORING_LLM_PROVIDER": provider})


def _sent_tokens(request: dict[str, Any]) -> int:
    """Estimated tokens of everything a request carries to the model: system, messages and the output schema."""
    system = request.get("system", "")
    if isinstance(system, list):
        system = "".join(block["text"] for block in system)
    texts = [system]
    for message in request["messages"]:
        content = message["content"]
        texts.extend([content] if isinstance(content, str) else [block.get("text", "") for block in content])
    texts.append(json.dumps(request.get("output_config", {}), separators=(",", ":")))
    return sum(estimate_tokens(text) for text in texts)


@pytest.mark.benchmark
def test_judge_input_tokens_against_raw_session_and_rubric(bench_table: BenchTable, fake_claude: Any) -> None:
    config = _config()
    settings = Settings(anthropic_api_key="bench-key", anthropic_base_url=fake_claude.base_url)
    judge = build_judge(config, settings)
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        raw = (SAMPLES / f"{session_id}.json").read_text(encoding="utf-8")
        session = parse_session_document(json.loads(raw), session_id)
        fake_claude.reset()
        judge.evaluate(JudgeRequest(session=session, prompt=build_prompt(config, session), timeout_seconds=10))
        sent = _sent_tokens(fake_claude.requests[0])
        floor = estimate_tokens(raw) + estimate_tokens(config.judge_prompt)
        bench_table.add(f"judge input tokens, sample {session_id[:8]}", sent, "tok", floor, "<= 1.1x")


@pytest.mark.benchmark
@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("~25k-token session", lambda: _session_of(25_000, 40)),
        ("~1M-token session", lambda: _session_of(1_000_000, 500)),
        ("2,400-tool-call session", lambda: long_session_document("bench", 2_400)),
    ],
)
def test_render_time_and_fit(bench_table: BenchTable, name: str, make: Callable[[], dict[str, Any]]) -> None:
    config = _config("heuristic")
    document = make()
    size_mb = len(json.dumps(document)) / 1e6
    session = parse_session_document(document, "bench")
    for budget in (Settings().judge_input_budget, 50_000):
        started = time.perf_counter()
        try:
            prompt = build_prompt(config, session, budget_tokens=budget)
            fit = f"fits: {prompt.estimated_tokens:,} tok, compacted={prompt.compacted}"
        except PromptTooLargeError:
            prompt, fit = None, "DOES NOT FIT"
        elapsed_ms = 1000 * (time.perf_counter() - started)
        if prompt is not None:  # every tool call is its own line, whichever tier was used
            lines = set(re.findall(r"^\d+\.\d+ (?:TOOL CALL )?(\S+) ", prompt.user, flags=re.MULTILINE))
            named = sum(1 for call in session.tool_calls if call.qualified_name in lines)
            fit += f", {named}/{len(session.tool_calls)} calls named on a line"
        bench_table.add(
            f"render {name} into {budget // 1000}k budget",
            elapsed_ms,
            "ms",
            note=f"{size_mb:.1f} MB, {len(session.tool_calls)} tool calls; {fit}",
        )


@pytest.mark.benchmark
@pytest.mark.parametrize("budget", [Settings().judge_input_budget, 50_000])
def test_most_tool_calls_that_fit(bench_table: BenchTable, budget: int) -> None:
    """The longest session of the 2,400-call kind (700-char results, reasoning between calls) that still fits."""
    config = _config()

    def fits(calls: int) -> bool:
        try:
            build_prompt(config, parse_session_document(long_session_document("b", calls), "b"), budget_tokens=budget)
        except PromptTooLargeError:
            return False
        return True

    low, high = 1, 20_000
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    bench_table.add(
        f"most tool calls that fit a {budget // 1000}k budget", low, "calls", note="every call kept as a line"
    )


# --- goodput under a rate-limited judge, in simulated time ---------------------------------------------------------


class VirtualTime:
    """Cooperative simulated time for a fixed set of threads: one runs at a time; when every thread sleeps, time
    jumps to the earliest wake-up. Deterministic apart from the order of equal wake-ups."""

    def __init__(self, participants: int) -> None:
        self.now = 0.0
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int]] = []
        self._seq = 0
        self._running = participants
        self._current = -1

    def sleep(self, seconds: float) -> None:
        with self._cond:
            self._seq += 1
            ticket = self._seq
            heapq.heappush(self._heap, (self.now + max(0.0, seconds), ticket))
            self._running -= 1
            self._next()
            while self._current != ticket:
                self._cond.wait()

    def finish(self) -> None:
        with self._cond:
            self._running -= 1
            self._next()

    def _next(self) -> None:
        if self._running == 0 and self._heap:
            wake, ticket = heapq.heappop(self._heap)
            self.now = max(self.now, wake)
            self._current = ticket
            self._running += 1
            self._cond.notify_all()


class BucketJudge:
    """A judge allowing ``per_minute`` requests per simulated minute (a token bucket holding a minute's worth);
    beyond it, a 429 as ClaudeJudge classifies it: JudgeTransientError with the whole seconds until a token."""

    provider = "anthropic"
    model = "fake-rate-limited"

    def __init__(self, clock: VirtualTime, per_minute: int, latency_seconds: float) -> None:
        self._clock = clock
        self._rate = per_minute / 60.0
        self._capacity = float(per_minute)
        self._tokens = float(per_minute)
        self._last = 0.0
        self._latency = latency_seconds
        self.rejected = 0

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        now = self._clock.now
        self._tokens = min(self._capacity, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens < 1.0:
            self.rejected += 1
            wait = math.ceil((1.0 - self._tokens) / self._rate)
            raise JudgeTransientError("the judge answered 429: rate limited", retry_after_seconds=float(wait))
        self._tokens -= 1.0
        self._clock.sleep(self._latency)
        output = JudgeOutputSchema.model_validate(SAMPLE_VERDICT)
        return JudgeVerdict(output=output, provider=self.provider, model=self.model)


@dataclass
class _Message:
    job: ScoringJob
    visible_at: float = 0.0
    receives: int = 0
    handle: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass
class SimQueue:
    """SQS as the job service sees it: visibility timeout on receive, a delay on give-back (ChangeMessageVisibility),
    a delayed send (DelaySeconds, a new message whose receives start at 0), a dead-letter queue."""

    clock: VirtualTime
    max_receive_count: int
    visibility_timeout: float
    messages: list[_Message] = field(default_factory=list)
    dead: int = 0
    copies: int = 0
    most_deferrals: int = 0

    def receive(self, now: float) -> _Message | None:
        for message in self.messages:
            if message.visible_at <= now:
                if message.receives >= self.max_receive_count:
                    self.messages.remove(message)
                    self.dead += 1
                    continue
                message.receives += 1
                message.visible_at = now + self.visibility_timeout
                return message
        return None

    def delay(self, receipt_handle: str, seconds: int) -> None:
        message = next(m for m in self.messages if m.handle == receipt_handle)
        message.visible_at = self.clock.now + seconds

    def send_later(self, job: ScoringJob, delay_seconds: int) -> None:
        self.copies += 1
        self.most_deferrals = max(self.most_deferrals, job.deferrals)
        self.messages.append(_Message(job, visible_at=self.clock.now + delay_seconds))


class MemoryRepository:
    """The scorer's port (``services.scorer.AttemptClaims``), always granted (the database is not what this benchmark
    measures); mypy checks it against the port, so a change there fails ``make lint`` here.
    ``dead_lettered``: attempts failed on their last allowed delivery (their messages go to the dead-letter queue)."""

    def __init__(self) -> None:
        self.dead_lettered = 0

    def claim(self, score_id: uuid.UUID, lease_seconds: int) -> ClaimResult:
        return ClaimResult(True, uuid.uuid4())

    def complete(
        self,
        score_id: uuid.UUID,
        claim_token: uuid.UUID,
        criteria_hash: str,
        verdict: JudgeVerdict,
        prompt: PromptStats,
        spread: dict[str, Any] | None = None,
        judging_ms: int | None = None,
        estimated_cost_usd: float | None = None,
        available_tools: Sequence[str] = (),
        scored_at: datetime | None = None,
        maxima: Mapping[str, int] | None = None,
    ) -> bool:
        return True

    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool:
        self.dead_lettered += dead_lettered
        return True

    def release(self, score_id: uuid.UUID, claim_token: uuid.UUID, message: str) -> bool:
        return True

    def renew_leases(self, claims: Sequence[tuple[uuid.UUID, uuid.UUID]], lease_seconds: int) -> set[uuid.UUID]:
        return {token for _, token in claims}


class FixedSource:
    name = "fixed"

    def __init__(self, session: Session) -> None:
        self._session = session

    def get_session(self, session_id: str) -> Session:
        return self._session

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        raise NotImplementedError("the benchmark scores one session by id")


STALL_SECONDS = 120
"""The simulation takes seconds (time is simulated); a worker still running after this is stuck, not slow."""


@dataclass
class GoodputResult:
    completed_in_window: int
    window_minutes: float
    rejected: int
    dead: int
    """Attempts given up on their last allowed delivery (failed, their messages left for the dead-letter queue)."""
    copies: int
    """Hand-backs sent as fresh, delayed copies (deferrals)."""
    most_deferrals: int
    """The most deferrals one job carried."""
    slept_in_invocations: float
    longest_sleep: float
    longest_invocation_sleep: float
    """The most one invocation slept in all (its retries' waits together)."""
    invocations: int


def simulate_goodput(
    per_minute: int,
    max_retry_wait_seconds: float,
    arrivals_per_minute: float,
    max_deferrals: int = 0,
    scorers: int = 5,
    latency_seconds: float = 5.0,
    minutes: int = 40,
    warmup_minutes: int = 5,
    lambda_timeout_seconds: float = 600.0,
) -> GoodputResult:
    """A backlog larger than the judge allows, ``scorers`` concurrent Lambda invocations each taking one message,
    the real JobService and Scorer (retry policy, give-back delays, deferred copies) with the judge limited to
    ``per_minute``."""
    clock = VirtualTime(scorers)
    judge = BucketJudge(clock, per_minute, latency_seconds)
    raw = (SAMPLES / f"{THOROUGH_ID}.json").read_text(encoding="utf-8")
    session = parse_session_document(json.loads(raw), THOROUGH_ID)
    policy = ScorerPolicy(
        lease_seconds=900,
        max_receive_count=5,
        judge_timeout_seconds=120,
        judge_max_retries=3,
        judge_retry_base_seconds=1,
        max_retry_wait_seconds=max_retry_wait_seconds,
        max_deferrals=max_deferrals,
    )
    sleeps: list[float] = []
    per_invocation: dict[int, float] = {}  # by worker thread: what its current invocation slept so far

    def sleep_in_invocation(seconds: float) -> None:
        sleeps.append(seconds)
        per_invocation[threading.get_ident()] = per_invocation.get(threading.get_ident(), 0.0) + seconds
        clock.sleep(seconds)

    repository = MemoryRepository()
    scorer = Scorer(
        _config(),
        repository,
        FixedSource(session),
        lambda: judge,
        policy,
        clock=lambda: clock.now,
        sleep=sleep_in_invocation,
    )
    queue = SimQueue(clock, max_receive_count=policy.max_receive_count, visibility_timeout=lambda_timeout_seconds * 6)
    jobs = JobService(scorer, queue)
    # Jobs arrive evenly, faster than the judge allows, so the judge is the bottleneck the whole time.
    arrivals = int(arrivals_per_minute * minutes)
    queue.messages = [
        _Message(
            ScoringJob(score_id=uuid.uuid4(), session_id=THOROUGH_ID, requested_by="bench", requested_at=_EPOCH),
            visible_at=index * 60.0 / arrivals_per_minute,
        )
        for index in range(arrivals)
    ]
    completed: list[float] = []
    invocations = [0]
    invocation_sleeps: list[float] = []
    horizon = minutes * 60.0

    errors: list[BaseException] = []

    def worker() -> None:
        # An error in one worker ends the simulation (and is raised below): a worker that died without leaving the
        # clock would leave the others waiting for it forever, printing nothing.
        try:
            clock.sleep(0)
            while clock.now < horizon and not errors:
                message = queue.receive(clock.now)
                if message is None:
                    clock.sleep(1.0)  # the SQS poller's next receive
                    continue
                invocations[0] += 1
                per_invocation[threading.get_ident()] = 0.0
                outcome = jobs.handle(message.job, message.handle, message.receives, lambda_timeout_seconds)
                invocation_sleeps.append(per_invocation[threading.get_ident()])
                if outcome.done:  # acknowledged: the Lambda poller deletes the message
                    queue.messages.remove(message)
                    if outcome.reason == "completed":
                        completed.append(clock.now)
                clock.sleep(0.05)  # the next invocation starts a moment later
        except BaseException as exc:  # re-raised by the caller once every worker has stopped
            errors.append(exc)
        finally:
            clock.finish()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(scorers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=STALL_SECONDS)
        if thread.is_alive():
            raise RuntimeError(f"the goodput simulation stalled: a worker is still running after {STALL_SECONDS} s")
    if errors:
        raise errors[0]
    window = [t for t in completed if warmup_minutes * 60 <= t < horizon]
    return GoodputResult(
        completed_in_window=len(window),
        window_minutes=minutes - warmup_minutes,
        rejected=judge.rejected,
        dead=repository.dead_lettered,
        copies=queue.copies,
        most_deferrals=queue.most_deferrals,
        slept_in_invocations=sum(sleeps),
        longest_sleep=max(sleeps, default=0.0),
        longest_invocation_sleep=max(invocation_sleeps, default=0.0),
        invocations=invocations[0],
    )


DEFAULT_MAX_DEFERRALS = Settings.model_fields["max_deferrals"].default


@pytest.mark.benchmark
@pytest.mark.parametrize("per_minute", [6, 30])
@pytest.mark.parametrize(
    ("policy", "max_wait", "max_deferrals"),
    [
        ("sleep through any retry-after", 1e9, 0),
        ("hand back retry-after > 5 s, counted (before)", 5.0, 0),
        (
            f"hand back retry-after > 5 s as deferred copies, cap {DEFAULT_MAX_DEFERRALS} (now)",
            5.0,
            DEFAULT_MAX_DEFERRALS,
        ),
    ],
)
def test_goodput_under_a_rate_limited_judge(
    bench_table: BenchTable, per_minute: int, policy: str, max_wait: float, max_deferrals: int
) -> None:
    result = simulate_goodput(per_minute, max_wait, arrivals_per_minute=per_minute * 1.25, max_deferrals=max_deferrals)
    per_minute_done = result.completed_in_window / result.window_minutes
    bench_table.add(
        f"goodput, judge limited to R={per_minute}/min, {policy}",
        per_minute_done,
        "/min",
        float(per_minute),
        ">= 0.98x",
        f"{result.dead} dead letters; {result.copies} deferred copies (most for one job {result.most_deferrals}); "
        f"slept {result.slept_in_invocations:,.0f} s in invocations (longest wait {result.longest_sleep:.0f} s, "
        f"most in one invocation {result.longest_invocation_sleep:.0f} s); "
        f"{result.rejected} 429s; {result.invocations} invocations",
    )
