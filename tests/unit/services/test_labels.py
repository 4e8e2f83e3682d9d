"""A human label's breakdown follows the rubric of the criteria in force: exactly its keys, each within its own
maximum, adding up to the total under a ``sum`` rubric only; through the API's service and the CSV import alike."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.criteria import default_rubric, load_scoring_config
from session_scoring.errors import InvalidParametersError, InvalidRequestError
from session_scoring.models.quality import LabelQueue, LabelRequest, NewLabel, SessionLabel, SessionReference
from session_scoring.models.rubric import Rubric
from session_scoring.services.labels import LabelService, breakdown_problem, csv_columns

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "config" / "scoring_config.yaml"
DEFAULT_FOUR = {"logical_flow": 25, "consistency": 25, "tool_relevance": 20, "synthesis_quality": 20}


def rubric(name: str) -> Rubric:
    return load_scoring_config(SHIPPED, {"SCORING_RUBRIC": name}).rubric


class MemoryLabels:
    """The labels a service stored, in memory (the repository's two writes; the reads are not needed here)."""

    def __init__(self) -> None:
        self.stored: list[NewLabel] = []

    def add(self, label: NewLabel) -> SessionLabel:
        self.stored.append(label)
        return SessionLabel(
            label_id=uuid.uuid4(),
            session_id=label.session_id,
            labeller=label.labeller,
            revision=1,
            total_score=label.request.total_score,
            score_breakdown=label.request.score_breakdown,
            band=label.request.effective_band,
            notes=label.request.notes,
            source=label.source,
            created_at=datetime.now(UTC),
        )

    def add_all(self, labels: Sequence[NewLabel], progress: Callable[[int], None]) -> int:
        self.stored.extend(labels)
        return len(labels)

    def for_session(self, session_id: str) -> list[SessionLabel]:
        raise NotImplementedError

    def add_reference(
        self, session_id: str, set_by: str, root_cause: str | None, remediation: str | None
    ) -> SessionReference:
        raise NotImplementedError

    def reference_history(self, session_id: str) -> list[SessionReference]:
        raise NotImplementedError

    def next_unlabelled(self, criteria_hash: str, labeller: str, after: str | None) -> LabelQueue:
        raise NotImplementedError


def service(name: str) -> tuple[LabelService, MemoryLabels]:
    store = MemoryLabels()
    return LabelService(store, lambda _session: None, rubric(name)), store


def label(total: int, breakdown: dict[str, int] | None) -> LabelRequest:
    body: dict[str, Any] = {"total_score": total, "score_breakdown": breakdown}
    return LabelRequest.model_validate(body)


def test_a_triage_label_takes_its_three_keys_each_within_its_own_maximum() -> None:
    triage, store = service("triage")
    # 10 + 20 + 30 = 60 of 60: 100 on 0-100; 5 + 10 + 15 = 30 of 60: 50
    stored = triage.put_label("s-1", "alice", label(100, {"evidence": 10, "diagnosis": 20, "next_steps": 30}))
    assert stored.score_breakdown == {"evidence": 10, "diagnosis": 20, "next_steps": 30}
    triage.put_label("s-2", "alice", label(50, {"evidence": 5, "diagnosis": 10, "next_steps": 15}))
    assert [s.request.score_breakdown for s in store.stored] == [
        {"evidence": 10, "diagnosis": 20, "next_steps": 30},
        {"evidence": 5, "diagnosis": 10, "next_steps": 15},
    ]


@pytest.mark.parametrize(
    ("breakdown", "total", "expected"),
    [
        # each key's own maximum: evidence is worth 10, next_steps 30
        (
            {"evidence": 11, "diagnosis": 20, "next_steps": 30},
            100,
            "score_breakdown.evidence is 11; evidence is worth 0-10 points in the rubric 'triage'",
        ),
        ({"evidence": 10, "diagnosis": 20, "next_steps": 31}, 100, "next_steps is worth 0-30 points"),
        ({"evidence": -1, "diagnosis": 20, "next_steps": 30}, 100, "score_breakdown.evidence is -1"),
        # the default rubric's four under triage: named, with the rubric's own keys and maxima
        (
            DEFAULT_FOUR,
            90,
            "score_breakdown lacks evidence, diagnosis, next_steps and has unknown consistency, logical_flow, "
            "synthesis_quality, tool_relevance; the rubric 'triage' has exactly the dimensions evidence (0-10), "
            "diagnosis (0-20), next_steps (0-30)",
        ),
        ({"evidence": 10, "diagnosis": 20}, 100, "score_breakdown lacks next_steps; the rubric 'triage' has exactly"),
        # a sum rubric: the points, scaled to 0-100, are the total
        (
            {"evidence": 5, "diagnosis": 10, "next_steps": 15},
            30,
            "add up to 30 of 60, 50 scaled to 0-100 (rubric 'triage') but total_score is 30",
        ),
    ],
)
def test_a_triage_label_off_the_rubric_is_refused_naming_the_rule(
    breakdown: dict[str, int], total: int, expected: str
) -> None:
    triage, store = service("triage")
    with pytest.raises(InvalidParametersError) as caught:
        triage.put_label("s-1", "alice", label(total, breakdown))
    assert expected in caught.value.message
    assert store.stored == []


def test_an_outcome_first_label_is_holistic_its_dimensions_need_not_add_up() -> None:
    outcome_first, store = service("outcome-first")
    breakdown = {
        "investigation_outcome": 20,
        "evidence_gathering": 5,
        "tool_utilization": 5,
        "analytical_reasoning": 5,
        "investigation_completeness": 5,
    }
    outcome_first.put_label("s-1", "alice", label(80, breakdown))  # 40 points, a total of 80: the human's own
    assert store.stored[0].request.score_breakdown == breakdown
    with pytest.raises(
        InvalidParametersError, match=r"investigation_outcome is 21; investigation_outcome is worth 0-20"
    ):
        outcome_first.put_label("s-1", "alice", label(80, {**breakdown, "investigation_outcome": 21}))


def test_the_default_rubric_refuses_as_it_always_did() -> None:
    default, _ = service("methodology")
    assert default.rubric == default_rubric()
    off = {**DEFAULT_FOUR, "consistency": 0, "tool_relevance": 0, "synthesis_quality": 0}
    assert breakdown_problem(default.rubric, 50, off) == (
        "the score_breakdown dimensions add up to 25 but total_score is 50; they must be equal (or leave "
        "score_breakdown out)"
    )
    assert breakdown_problem(default.rubric, 90, DEFAULT_FOUR) is None
    assert breakdown_problem(default.rubric, 90, None) is None


def test_the_csv_columns_are_the_rubrics() -> None:
    assert csv_columns(rubric("triage")) == (
        "session_id",
        "labeller",
        "total_score",
        "evidence",
        "diagnosis",
        "next_steps",
        "band",
        "notes",
    )
    assert csv_columns(default_rubric())[3:7] == ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")


def test_a_triage_csv_imports_with_its_own_columns() -> None:
    triage, _ = service("triage")
    parsed = triage.parse_csv(
        "session_id,labeller,total_score,evidence,diagnosis,next_steps,notes\n"
        "s-1,alice,50,5,10,15,half\n"
        "s-2,bob,70,,,,\n"
    )
    assert [(p.session_id, p.request.total_score, p.request.score_breakdown) for p in parsed] == [
        ("s-1", 50, {"evidence": 5, "diagnosis": 10, "next_steps": 15}),
        ("s-2", 70, None),
    ]


def test_a_csv_with_another_rubrics_columns_is_refused_naming_each_column() -> None:
    triage, _ = service("triage")
    with pytest.raises(InvalidRequestError) as caught:
        triage.parse_csv("session_id,total_score,evidence,logical_flow\ns-1,50,5,10\n")
    message = caught.value.message
    assert "the CSV header has unknown column(s) logical_flow (line 1, column 4)" in message
    assert "the columns are session_id, labeller, total_score, evidence, diagnosis, next_steps, band, notes" in message


def test_bad_triage_rows_name_their_line_and_the_rubrics_rule() -> None:
    triage, _ = service("triage")
    with pytest.raises(InvalidRequestError) as caught:
        triage.parse_csv(
            "session_id,labeller,total_score,evidence,diagnosis,next_steps\n"
            "s-1,alice,50,5,,\n"
            "s-2,alice,100,11,20,30\n"
            "s-3,alice,40,5,10,15\n"
        )
    message = caught.value.message
    assert "3 bad row(s), nothing imported" in message
    assert "line 2 (session s-1): give all three dimensions or none; diagnosis, next_steps empty" in message
    assert "line 3 (session s-2): score_breakdown.evidence is 11; evidence is worth 0-10 points" in message
    assert "line 4 (session s-3): the score_breakdown dimensions add up to 30 of 60, 50 scaled" in message
