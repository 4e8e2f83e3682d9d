"""A busy judge does not use up a job's deliveries: through the real scorer handler (fed by the queue poller as the
Lambda SQS poller feeds it) on moto's SQS, the judge through the real SDK against the fake Messages API answering 429
with ``retry-after``. The job comes back as a fresh, delayed copy of its message and the original is deleted; past
``SCORING_MAX_DEFERRALS`` the counted path applies; a copy that cannot be sent leaves the original, delayed.
Time passing (message delays) is moved, never slept for."""

from __future__ import annotations

from typing import Any

import pytest

from session_scoring.errors import QueueUnavailableError
from session_scoring.models.jobs import ScoringJob
from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, reply_error, reply_verdict
from tests.support.moto_sqs import delayed_messages, end_delays, hidden_messages

CLAUDE_ENV = {
    "SCORING_LLM_PROVIDER": "anthropic",
    "ANTHROPIC_API_KEY": "test-key-not-secret",
    "JUDGE_TIMEOUT_SECONDS": "5",
}


def rate_limited(seconds: int = 40) -> Any:
    return reply_error(429, "rate_limit_error", "Number of requests exceeded", {"retry-after": str(seconds)})


def queue_counts(stack: Stack, queue_url: str) -> dict[str, int]:
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=queue_url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return {
        "visible": int(attributes["ApproximateNumberOfMessages"]),
        "in_flight": int(attributes["ApproximateNumberOfMessagesNotVisible"]),
        "delayed": int(attributes["ApproximateNumberOfMessagesDelayed"]),
    }


def the_copy(stack: Stack) -> tuple[ScoringJob, float]:
    (message,) = delayed_messages(stack.resources.queue_url)
    return ScoringJob.model_validate_json(message.body), message.delay_left_seconds


def test_a_rate_limited_job_comes_back_as_a_delayed_copy_and_the_original_is_deleted(
    claude_stack: Stack, fake_claude: Any
) -> None:
    fake_claude.script(rate_limited(40))
    claude_stack.request_score(THOROUGH_ID)
    attempt = claude_stack.score(THOROUGH_ID).json()

    assert claude_stack.poller.drain() == 1

    assert queue_counts(claude_stack, claude_stack.resources.queue_url) == {"visible": 0, "in_flight": 0, "delayed": 1}
    copy, delay_left = the_copy(claude_stack)
    assert str(copy.score_id) == attempt["score_id"]  # the id the scorer's claim dedupes on
    assert copy.session_id == THOROUGH_ID
    assert copy.deferrals == 1
    assert 30 < delay_left <= 40
    waiting = claude_stack.score(THOROUGH_ID).json()
    assert waiting["status"] == "pending"
    assert "deferred until " in waiting["error_message"]
    assert "will retry in about 40 s (deferral 1 of 20, no delivery used)" in waiting["error_message"]
    assert queue_counts(claude_stack, claude_stack.resources.dead_letter_queue_url)["visible"] == 0

    end_delays(claude_stack.resources.queue_url)
    claude_stack.poller.drain()  # the judge answers this time

    done = claude_stack.score(THOROUGH_ID).json()
    assert done["status"] == "completed"
    assert done["score_id"] == attempt["score_id"]
    assert len(fake_claude.requests) == 2


def test_a_job_on_its_last_delivery_is_deferred_instead_of_dead_lettered(claude_stack: Stack, fake_claude: Any) -> None:
    """SCORING_MAX_RECEIVE_COUNT is 3 here: two receives go by (a scorer that died, say) before the rate limit."""
    claude_stack.request_score(THOROUGH_ID)
    queue_url = claude_stack.resources.queue_url
    for _ in range(2):
        received = claude_stack.sqs.receive_message(QueueUrl=queue_url)["Messages"][0]
        claude_stack.sqs.change_message_visibility(
            QueueUrl=queue_url, ReceiptHandle=received["ReceiptHandle"], VisibilityTimeout=0
        )
    fake_claude.script(*[rate_limited(40)] * 3)

    for _ in range(3):  # each time: the copy's receive count starts over, so none reaches the dead-letter queue
        assert claude_stack.poller.drain() == 1
        assert end_delays(queue_url) == 1

    assert claude_stack.poller.drain() == 1
    assert claude_stack.score(THOROUGH_ID).json()["status"] == "completed"
    assert queue_counts(claude_stack, claude_stack.resources.dead_letter_queue_url) == {
        "visible": 0,
        "in_flight": 0,
        "delayed": 0,
    }


def test_past_the_cap_the_hand_back_counts_and_a_judge_that_never_recovers_ends_dead_lettered_with_the_reason(
    make_stack: Any, fake_claude: Any
) -> None:
    stack: Stack = make_stack(**CLAUDE_ENV, ANTHROPIC_BASE_URL=fake_claude.base_url, SCORING_MAX_DEFERRALS="1")
    fake_claude.default = rate_limited(40)  # the judge never recovers
    stack.request_score(THOROUGH_ID)
    queue_url = stack.resources.queue_url

    stack.poller.drain()  # deferral 1 of 1: a fresh copy
    assert end_delays(queue_url) == 1
    stack.poller.drain()  # past the cap: the copy itself is kept and delayed (its first receive)

    assert queue_counts(stack, queue_url) == {"visible": 0, "in_flight": 1, "delayed": 0}
    waiting = stack.score(THOROUGH_ID).json()
    assert waiting["status"] == "pending"
    assert waiting["error_message"].startswith("transient failure, will retry in about 40 s")

    for _ in range(2):  # receives 2 and 3 of SCORING_MAX_RECEIVE_COUNT=3
        stack.poller.make_deferred_visible()
        stack.poller.drain()

    failed = stack.score(THOROUGH_ID).json()
    assert failed["status"] == "failed"
    assert "gave up after 3 deliveries" in failed["error_message"]
    assert "429" in failed["error_message"]
    stack.poller.make_deferred_visible()
    stack.poller.drain()  # the receive past the limit: SQS moves the message to the dead-letter queue
    dead = stack.sqs.receive_message(QueueUrl=stack.resources.dead_letter_queue_url)["Messages"]
    assert [ScoringJob.model_validate_json(m["Body"]).deferrals for m in dead] == [1]


class SendsRefused:
    """The scoring queue with every send refused (an SQS outage for SendMessage, say): visibility calls still work."""

    def __init__(self, queue: Any) -> None:
        self._queue = queue

    def send_later(self, job: ScoringJob, delay_seconds: int) -> None:
        raise QueueUnavailableError("the queue did not accept the delayed job (injected)")

    def delay(self, receipt_handle: str, seconds: int) -> None:
        self._queue.delay(receipt_handle, seconds)


def test_when_the_copy_cannot_be_sent_the_original_is_kept_and_delayed(
    claude_stack: Stack, fake_claude: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(claude_stack.container.job_service, "queue", SendsRefused(claude_stack.container.queue))
    fake_claude.script(rate_limited(40))
    claude_stack.request_score(THOROUGH_ID)

    assert claude_stack.poller.drain() == 1

    # Not acknowledged: the original is in flight, hidden for the retry-after, and no copy exists.
    assert queue_counts(claude_stack, claude_stack.resources.queue_url) == {"visible": 0, "in_flight": 1, "delayed": 0}
    ((_body, hidden_for),) = hidden_messages(claude_stack.resources.queue_url)
    assert 30 < hidden_for <= 40
    assert claude_stack.score(THOROUGH_ID).json()["status"] == "pending"

    claude_stack.poller.make_deferred_visible()
    claude_stack.poller.drain()

    assert claude_stack.score(THOROUGH_ID).json()["status"] == "completed"


def test_jobs_meeting_an_open_circuit_are_deferred_until_its_probe_and_then_complete(
    make_stack: Any, fake_claude: Any
) -> None:
    from tests.integration.faults.conftest import FAULT_ENV, breaker_state, pass_recovery_timeout

    env = {key: value for key, value in FAULT_ENV.items() if key != "SCORING_MAX_DEFERRALS"}  # the default: on
    stack: Stack = make_stack(**env, ANTHROPIC_BASE_URL=fake_claude.base_url)
    fake_claude.default = reply_error(529, "overloaded_error", "Overloaded")  # no retry-after: the job's own failure
    sessions = [THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID]
    for session_id in sessions:
        stack.request_score(session_id)

    stack.poller.drain()

    assert breaker_state(stack) == "OPEN"
    deferred = [stack.score(s).json() for s in sessions]
    notes = [d["error_message"] for d in deferred if "circuit open" in d["error_message"]]
    # The first job's four calls and the second's first open the circuit; the second's retry and the third meet it.
    assert len(notes) == 2
    assert len(fake_claude.requests) == 5  # no call while the circuit is open
    assert all(n.startswith("judge unavailable (circuit open); deferred until ") for n in notes)
    copies = delayed_messages(stack.resources.queue_url)
    assert len(copies) == len(notes)
    recovery = int(env["SCORING_BREAKER_RECOVERY_SECONDS"])
    assert all(0 < copy.delay_left_seconds <= recovery + 1 for copy in copies)
    assert {ScoringJob.model_validate_json(copy.body).deferrals for copy in copies} == {1}

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)
    pass_recovery_timeout(stack)
    end_delays(stack.resources.queue_url)
    stack.poller.make_deferred_visible()
    stack.poller.drain()

    assert [stack.score(s).json()["status"] for s in sessions] == ["completed"] * 3
    assert queue_counts(stack, stack.resources.dead_letter_queue_url)["visible"] == 0
