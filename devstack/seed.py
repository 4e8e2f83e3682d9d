"""`python -m devstack seed --scores 300`: demo scores in the local stack's database, so the dashboard's analytics
(trends, the criteria comparison, missing tools) have something to show.

The scores are written as the scorer writes them (``ScoreRepository``), backdated over the last weeks: two thirds
under the current criteria, the rest re-scores under a stricter "candidate". Each seeded session is stored as an
upload too (a short made-up transcript), so the session source lists it. A fixed random seed makes the same command
write the same data; sessions stored by an earlier seeding are kept.
"""

from __future__ import annotations

import argparse
import copy
import random
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from session_scoring.configuration.criteria import criteria_hash_of
from session_scoring.errors import SessionNotFoundError
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.models.session import SESSION_FORMAT, Session, Stage, Step
from session_scoring.repositories.uploads import UPLOAD_PREFIX, UPLOAD_SOURCE, NewUpload

#: The seeded sessions' ids are uuid5 names in this namespace: stable across runs, random-looking.
NAMESPACE = uuid.UUID("5eed5eed-0000-4000-8000-000000000012")
TRIGGER = "seed"
PROVIDER = "seed"

# Agent: (its mean total, its weekly improvement). Different levels and slopes make per-agent lines tell apart.
AGENTS = {
    "KubernetesAgent": (70.0, 1.5),
    "NetworkAgent": (56.0, 3.0),
    "DatabaseAgent": (80.0, 0.0),
    "SecurityAgent": (46.0, 2.0),
}
ALERT_TYPES = ["PodCrashLooping", "HighLatency", "DiskPressure", "CertificateExpiring"]
# What each alert says, as the task a seeded transcript starts with ({n}: a made-up resource number).
ALERT_TEXT = {
    "PodCrashLooping": "pod checkout-api-{n} in namespace shop restarted 9 times in 15 minutes",
    "HighLatency": "p99 latency of service payments-{n} above 2 s for 10 minutes",
    "DiskPressure": "node worker-{n} has less than 5% disk space left on /var/lib/containerd",
    "CertificateExpiring": "TLS certificate of ingress edge-{n} expires in 3 days",
}
# Tools the judge names missing, several spellings of one tool among them (the canonical name counts them as one).
TOOLS = [
    ("kubectl_top", "CPU and memory per pod would have confirmed the resource pressure."),
    ("mcp__k8s__get_pod_logs", "The crashing container's logs were never read."),
    ("k8s.get_pod_logs", "The previous container's logs would show the crash reason."),
    ("prometheus_query", "The latency series before the alert would date the regression."),
    ("Prometheus_Query", "An error-rate query would have shown which upstream failed."),
    ("trace_lookup", "A trace of a slow request would have located the slow hop."),
    ("pg_stat_activity", "Blocked queries would have shown the lock holder."),
]
TOOL_WEIGHTS = [5, 4, 2, 4, 1, 3, 2]


@dataclass
class SeedSummary:
    """What a seeding wrote."""

    scores: int = 0
    sessions: int = 0
    by_criteria: dict[str, int] = field(default_factory=dict)
    first_scored_at: datetime | None = None
    last_scored_at: datetime | None = None


def candidate_criteria(current: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A second criteria definition derived from the current one (a stricter judge to compare with), and its hash."""
    content = copy.deepcopy(current)
    content["scoring"] = {**content.get("scoring", {}), "llm_provider": PROVIDER, "llm_model": "stricter-candidate"}
    content["judge_prompt"] = f"{content.get('judge_prompt', '')}\n\n(Seeded candidate: stricter on tool relevance.)"
    return criteria_hash_of(content), content


def _breakdown(total: int, maxima: dict[str, int], rng: random.Random) -> dict[str, int]:
    """The rubric's dimensions (``maxima``: key -> maximum) at ``total``'s share of each maximum. Four of 25 (the
    default rubric) sum to ``total`` exactly: an even split, then points moved at random within bounds."""
    keys = list(maxima)
    if list(maxima.values()) != [25, 25, 25, 25]:
        return {key: min(m, max(0, round(total * m / 100) + rng.randint(-1, 1))) for key, m in maxima.items()}
    points = [total // 4 + (1 if i < total % 4 else 0) for i in range(4)]
    for _ in range(6):
        give, take = rng.randrange(4), rng.randrange(4)
        moved = min(rng.randint(0, 4), points[give], 25 - points[take])
        points[give] -= moved
        points[take] += moved
    return dict(zip(keys, points, strict=True))


def _verdict(
    total: int, tools: list[tuple[str, str]], rng: random.Random, model: str, maxima: dict[str, int]
) -> JudgeVerdict:
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": total,
            "score_breakdown": _breakdown(total, maxima, rng),
            "score_reasoning": f"Seeded demo verdict: {total}/100 (no judge was asked).",
            "missing_tools": [{"tool_name": name, "rationale": why} for name, why in tools],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given for this session",
        }
    )
    return JudgeVerdict(output=output, provider=PROVIDER, model=model)


def _clamp(value: float) -> int:
    return max(0, min(100, round(value)))


def _missing_tools(total: int, rng: random.Random) -> list[tuple[str, str]]:
    """Weaker sessions miss more tools: none to three, distinct."""
    wanted = rng.choices([0, 1, 2, 3], weights=[max(1, total - 40), 30, 15, max(1, 60 - total)])[0]
    chosen: dict[str, str] = {}
    while len(chosen) < wanted:
        name, why = rng.choices(TOOLS, weights=TOOL_WEIGHTS)[0]
        chosen[name] = why
    return list(chosen.items())


def seed(container: Any, scores: int, weeks: int = 6, now: datetime | None = None, rng_seed: int = 12) -> SeedSummary:
    """Write ``scores`` completed scores through the container's ``ScoreRepository``: two thirds under the current
    criteria over the last ``weeks`` weeks, the rest re-scores of some of those sessions under a candidate criteria."""
    if scores < 1:
        raise ValueError(f"scores must be at least 1, got {scores}")
    rng = random.Random(rng_seed)
    repo = container.score_repository
    config = container.config
    end = (now or datetime.now(UTC)).replace(microsecond=0)
    span = timedelta(weeks=weeks)
    current_hash = config.criteria_hash
    maxima = config.rubric.maxima  # the candidate criteria differ in their prompt only: the same rubric
    candidate_hash, candidate_content = candidate_criteria(config.criteria_content)
    repo.ensure_criteria(current_hash, config.criteria_content)
    repo.ensure_criteria(candidate_hash, candidate_content)
    base_count = max(1, (2 * scores + 2) // 3)
    summary = SeedSummary(sessions=base_count, by_criteria={current_hash: 0, candidate_hash: 0})

    uploads: list[NewUpload] = []

    def store(session_id: str, criteria: str, total: int, at: datetime, facts: SessionFacts, model: str) -> None:
        score_id = uuid.uuid4()
        repo.create_attempt(score_id, session_id, criteria, TRIGGER, facts)
        claim = repo.claim(score_id, 60)
        if claim.claim_token is None:
            raise RuntimeError(f"could not claim the seeded attempt of {session_id} (is it being scored?)")
        verdict = _verdict(total, _missing_tools(total, rng), rng, model, maxima)
        stored = repo.complete(
            score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None), scored_at=at, maxima=maxima
        )
        if not stored:
            raise RuntimeError(f"the seeded attempt of {session_id} lost its claim (a reaper took it?)")
        summary.scores += 1
        summary.by_criteria[criteria] += 1
        summary.first_scored_at = min(at, summary.first_scored_at or at)
        summary.last_scored_at = max(at, summary.last_scored_at or at)

    for i in range(base_count):
        session_id = f"{UPLOAD_PREFIX}{uuid.uuid5(NAMESPACE, f'session-{i}')}"
        agent = rng.choice(list(AGENTS))
        level, slope = AGENTS[agent]
        scored_at = end - span * rng.random()
        weeks_in = (scored_at - (end - span)) / timedelta(weeks=1)
        total = _clamp(rng.gauss(level + slope * weeks_in, 9))
        started = scored_at - timedelta(minutes=rng.randint(20, 600))
        facts = SessionFacts(
            agent=agent,
            alert_type=rng.choice(ALERT_TYPES),
            started_at=started,
            ended_at=started + timedelta(minutes=rng.randint(2, 15)),
            stages=rng.randint(1, 4),
            tool_calls=rng.randint(2, 30),
            source=UPLOAD_SOURCE,
        )
        uploads.append(_upload(session_id, facts, i))
        store(session_id, current_hash, total, scored_at, facts, "seed-current")
        if i < scores - base_count:
            # The candidate is stricter on weak sessions and a little kinder on strong ones, with some noise.
            rescored = min(end, scored_at + timedelta(hours=rng.randint(1, 72)))
            shifted = total - 6 + 0.12 * (total - 60) + rng.gauss(0, 5)
            store(session_id, candidate_hash, _clamp(shifted), rescored, facts, "stricter-candidate")
    container.uploads.add_all([u for u in uploads if not _stored(container.uploads, u.session.session_id)])
    return summary


def _stored(uploads: Any, session_id: str) -> bool:
    try:
        uploads.get_session(session_id)
    except SessionNotFoundError:
        return False
    return True


def _upload(session_id: str, facts: SessionFacts, number: int) -> NewUpload:
    """A seeded session as an upload: the alert as the task the agent was given, one reasoning step, the answer."""
    alert_type = facts.alert_type or ALERT_TYPES[0]
    task = f"Alert {alert_type}: {ALERT_TEXT[alert_type].format(n=number)}. Investigate and report the root cause."
    session = Session(
        session_id=session_id,
        status="completed",
        alert_type=alert_type,
        agent_type=facts.agent,
        author=TRIGGER,
        started_at=facts.started_at,
        completed_at=facts.ended_at,
        source=UPLOAD_SOURCE,
        alert={"alertname": alert_type, "description": ALERT_TEXT[alert_type].format(n=number)},
        stages=[
            Stage(
                name="investigation",
                agent=facts.agent,
                steps=[
                    Step(kind="message", text=f"User: {task}"),
                    Step(kind="reasoning", text="Seeded demo session: no tools were called."),
                    Step(kind="answer", text=f"Seeded demo answer for {alert_type}."),
                ],
            )
        ],
        final_analysis=f"Seeded demo answer for {alert_type}.",
    )
    document = session.model_dump_json()
    return NewUpload(
        session=session,
        trace_format=SESSION_FORMAT,
        file_name=None,
        original_session_id=None,
        document=document,
        size_bytes=len(document.encode()),
        uploaded_by=TRIGGER,
    )


def main(argv: list[str], container: Any) -> int:
    """Parse ``seed``'s options, write the scores, print what was written."""
    parser = argparse.ArgumentParser(prog="python -m devstack seed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scores", type=int, default=300, help="completed scores to write (default 300)")
    parser.add_argument("--weeks", type=int, default=6, help="weeks of scored_at to spread them over (default 6)")
    parser.add_argument("--random-seed", type=int, default=12, help="the random seed (the same seed, the same data)")
    args = parser.parse_args(argv)
    if args.scores < 1 or args.weeks < 1:
        parser.error("--scores and --weeks must be at least 1")
    summary = seed(container, args.scores, weeks=args.weeks, rng_seed=args.random_seed)
    print(f"seeded {summary.scores} completed score(s) of {summary.sessions} session(s)", flush=True)
    for criteria_hash, count in summary.by_criteria.items():
        current = " (current)" if criteria_hash == container.config.criteria_hash else " (candidate)"
        print(f"  criteria {criteria_hash[:12]}{current}: {count}", flush=True)
    if summary.first_scored_at and summary.last_scored_at:
        print(f"  scored_at from {summary.first_scored_at:%Y-%m-%d} to {summary.last_scored_at:%Y-%m-%d}", flush=True)
    return 0
