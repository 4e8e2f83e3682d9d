"""Human labels through the API and the CSV import, and the agreement report on a small fixed set whose figures
were computed by hand (real PostgreSQL)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from session_scoring.entrypoints.cli import labels_command
from session_scoring.errors import InvalidRequestError
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats
from tests.conftest import Stack
from tests.integration.test_analytics_api import seed_score
from tests.support.fake_claude import scripted_verdict

AGREEMENT = "/api/v1/scoring/analytics/agreement"
NO_PROMPT = PromptStats(compacted=False, tokens_before=None, tokens_after=None)


@pytest.fixture
def labels_stack(make_stack: Any) -> Stack:
    """A stack where session ``s-1`` exists (it has a pending attempt): a label needs a session that exists."""
    result: Stack = make_stack(SCORING_TRUST_FORWARDED_USER="true")
    seed_score(result, "s-1", None)
    return result


def put(stack: Stack, session_id: str, who: str, body: dict[str, Any]) -> Any:
    return stack.client.put(
        f"/api/v1/scoring/sessions/{session_id}/labels", json=body, headers={"X-Forwarded-User": who}
    )


def put_ok(stack: Stack, session_id: str, who: str, body: dict[str, Any]) -> None:
    response = put(stack, session_id, who, body)
    assert response.status_code == 200, response.text


def test_a_labeller_revises_their_label_and_every_revision_is_kept(labels_stack: Stack) -> None:
    first = put(labels_stack, "s-1", "alice", {"total_score": 60, "notes": "first look"})
    assert first.status_code == 200, first.text
    assert (first.json()["revision"], first.json()["band"], first.json()["labeller"]) == (1, "adequate", "alice")
    breakdown = {"logical_flow": 25, "consistency": 25, "tool_relevance": 20, "synthesis_quality": 20}
    second = put(labels_stack, "s-1", "alice", {"total_score": 90, "score_breakdown": breakdown})
    assert second.json()["revision"] == 2
    put(labels_stack, "s-1", "bob", {"total_score": 85, "band": "good"})

    body = labels_stack.client.get("/api/v1/scoring/sessions/s-1/labels").json()
    assert [(c["labeller"], c["revision"], c["total_score"]) for c in body["current"]] == [
        ("alice", 2, 90),
        ("bob", 1, 85),
    ]
    assert sorted((h["labeller"], h["revision"]) for h in body["history"]) == [("alice", 1), ("alice", 2), ("bob", 1)]
    assert next(h for h in body["history"] if h["revision"] == 1 and h["labeller"] == "alice")["notes"] == "first look"


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"total_score": 101}, "less than or equal to 100"),
        ({"total_score": 50, "band": "good"}, "in band 'weak'"),
        (
            {
                "total_score": 50,
                "score_breakdown": {"logical_flow": 25, "consistency": 0, "tool_relevance": 0, "synthesis_quality": 0},
            },
            "add up to 25 but total_score is 50",
        ),
        ({"total_score": "50"}, "valid integer"),
    ],
)
def test_a_bad_label_is_refused_with_the_reason(labels_stack: Stack, body: dict[str, Any], problem: str) -> None:
    response = put(labels_stack, "s-1", "alice", body)
    assert response.status_code == 422
    assert problem in response.text
    assert labels_stack.client.get("/api/v1/scoring/sessions/s-1/labels").json()["history"] == []


class Out:
    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> None:
        self.text += text

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def import_csv(stack: Stack, path: Path, labeller: str | None = None) -> str:
    import argparse

    out = Out()
    labels_command(stack.container.label_service, argparse.Namespace(file=path, labeller=labeller), out)  # type: ignore[arg-type]
    return out.text


def test_a_csv_with_bad_rows_imports_nothing_and_names_every_bad_row(labels_stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "session_id,labeller,total_score,logical_flow,consistency,tool_relevance,synthesis_quality,band,notes\n"
        "s-1,alice,70,,,,,,fine\n"
        "s-2,alice,abc,,,,,,\n"
        "s-3,,50,,,,,,\n"
        "s-4,bob,60,25,,,,,\n"
        "s-5,bob,40,,,,,good,\n"
    )
    with pytest.raises(InvalidRequestError) as caught:
        import_csv(labels_stack, path)
    message = caught.value.message
    assert "4 bad row(s), nothing imported" in message
    assert "line 3 (session s-2): total_score: 'abc' is not a whole number" in message
    assert "line 4 (session s-3): no labeller" in message
    assert "line 5 (session s-4): give all four dimensions or none" in message
    assert "line 6 (session s-5)" in message
    assert "in band 'failed'" in message
    assert labels_stack.client.get("/api/v1/scoring/sessions/s-1/labels").json()["history"] == []


def test_a_good_csv_is_imported_in_one_go_with_a_progress_line(labels_stack: Stack, tmp_path: Path) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "session_id,total_score,logical_flow,consistency,tool_relevance,synthesis_quality,labeller\n"
        "s-1,70,20,20,15,15,\n"
        "s-1,75,,,,,\n"
        "s-2,40,,,,,carol\n"
    )
    text = import_csv(labels_stack, path, labeller="dave")
    assert "import [" in text
    assert "3/3" in text
    assert "imported 3 label(s) for 2 session(s) from 2 labeller(s)" in text
    current = labels_stack.client.get("/api/v1/scoring/sessions/s-1/labels").json()["current"]
    assert [(c["labeller"], c["revision"], c["total_score"], c["source"]) for c in current] == [
        ("dave", 2, 75, "import")
    ]


def test_agreement_figures_equal_the_hand_computed_values(labels_stack: Stack) -> None:
    stack = labels_stack
    criteria = stack.container.config.criteria_hash
    for session, total in {"s1": 80, "s2": 50, "s3": 90, "s4": 30, "s6-score-only": 70}.items():
        seed_score(stack, session, total)
    seed_score(stack, "s1", 10, criteria_hash="b" * 64)  # another criteria: not part of this report
    s1_dimensions = {"logical_flow": 25, "consistency": 25, "tool_relevance": 25, "synthesis_quality": 20}
    put_ok(stack, "s1", "alice", {"total_score": 60})
    put_ok(stack, "s1", "alice", {"total_score": 95, "score_breakdown": s1_dimensions})  # the revision counts
    put_ok(stack, "s2", "alice", {"total_score": 55})
    put_ok(stack, "s2", "bob", {"total_score": 55})
    put_ok(stack, "s3", "alice", {"total_score": 92})
    put_ok(stack, "s3", "bob", {"total_score": 88})
    put_ok(stack, "s4", "alice", {"total_score": 40})
    seed_score(stack, "s5-label-only", None)  # it exists (a pending attempt) but has no completed score
    put_ok(stack, "s5-label-only", "alice", {"total_score": 40})
    # A judge-quality sample is never a score: this one, newer than s2's real score, changes nothing.
    sample = JudgeVerdict(
        output=JudgeOutputSchema.model_validate(scripted_verdict((0, 0, 0, 0))), provider="t", model="m"
    )
    stack.container.score_repository.store_sample("s2", criteria, "repeatability:t", "repeatability", sample, NO_PROMPT)

    response = stack.client.get(AGREEMENT, params={"criteria_hash": criteria})
    assert response.status_code == 200, response.text
    report = response.json()

    # judge 80, 50, 90, 30 vs human 95, 55, 90 (mean of 92 and 88), 40
    assert report["n"] == 4
    assert report["spearman_rho"] == pytest.approx(0.8)
    assert report["kendall_tau"] == pytest.approx(4 / 6)
    assert report["mean_absolute_error"] == pytest.approx(7.5)  # (15 + 5 + 0 + 10) / 4
    assert report["within_5"] == pytest.approx(0.5)
    assert report["within_10"] == pytest.approx(0.75)
    # human bands near_perfect, weak, near_perfect, failed; judge good, weak, near_perfect, failed
    assert report["confusion"] == [
        [1, 0, 0, 0, 0],
        [0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 1, 1],
    ]
    assert report["weighted_kappa"] == pytest.approx(22 / 23)
    # seeded judge dimensions of 80: 25, 25, 25, 5; alice's: 25, 25, 25, 20
    assert {d["dimension"]: (d["n"], d["mean_absolute_error"]) for d in report["dimensions"]} == {
        "logical_flow": (1, 0.0),
        "consistency": (1, 0.0),
        "tool_relevance": (1, 0.0),
        "synthesis_quality": (1, 15.0),
    }
    # s2 (55, 55) and s3 (92, 88): D_o = 32/4 = 8, D_e = 9864/12 = 822
    assert report["human_sessions_multi"] == 2
    assert report["krippendorff_alpha"] == pytest.approx(1 - 8 / 822)
    assert [(p["session_id"], p["human_total"], p["judge_total"]) for p in report["pairs"]] == [
        ("s1", 95, 80),
        ("s2", 55, 50),
        ("s3", 90, 90),
        ("s4", 40, 30),
    ]


def test_agreement_without_data_is_empty_not_an_error(labels_stack: Stack) -> None:
    report = labels_stack.client.get(AGREEMENT).json()
    assert report["n"] == 0
    assert report["spearman_rho"] is None
    assert report["weighted_kappa"] is None
    assert report["krippendorff_alpha"] is None


QUEUE = "/api/v1/scoring/labels/next"


def next_for(stack: Stack, who: str, after: str | None = None) -> Any:
    response = stack.client.get(QUEUE, params={"after": after} if after else {}, headers={"X-Forwarded-User": who})
    assert response.status_code == 200, response.text
    return response.json()


def test_the_labelling_queue_offers_each_unlabelled_scored_session_in_turn(labels_stack: Stack) -> None:
    stack = labels_stack
    criteria = stack.container.config.criteria_hash
    for session, total in {"q-b": 70, "q-a": 40, "q-c": 90}.items():
        seed_score(stack, session, total)
    seed_score(stack, "q-d-other-criteria", 50, criteria_hash="c" * 64)  # not under the current criteria
    seed_score(stack, "q-e-failed", None, fail=True)  # no completed score: nothing to compare a label with
    put_ok(stack, "q-b", "bob", {"total_score": 10})  # bob's label does not take q-b out of alice's queue

    first = next_for(stack, "alice")
    assert (first["labeller"], first["criteria_hash"], first["remaining"]) == ("alice", criteria, 3)
    assert (first["next"]["session_id"], first["next"]["total_score"], first["next"]["band"]) == ("q-a", 40, "failed")

    # alice skips q-a: the next one after it, and q-a is still counted as left
    skipped = next_for(stack, "alice", after="q-a")
    assert (skipped["next"]["session_id"], skipped["remaining"]) == ("q-b", 3)
    put_ok(stack, "q-b", "alice", {"total_score": 75})
    after_label = next_for(stack, "alice", after="q-b")
    assert (after_label["next"]["session_id"], after_label["remaining"]) == ("q-c", 2)
    put_ok(stack, "q-c", "alice", {"total_score": 85})
    end = next_for(stack, "alice", after="q-c")
    assert (end["next"], end["remaining"]) == (None, 1)
    # from the start again: only the skipped session is left
    assert next_for(stack, "alice")["next"]["session_id"] == "q-a"
    assert next_for(stack, "bob")["remaining"] == 2


def test_the_labelling_queue_refuses_an_after_that_is_not_a_session_id(labels_stack: Stack) -> None:
    response = labels_stack.client.get(QUEUE, params={"after": "../etc"})
    assert response.status_code == 422
    assert "after" in response.text
