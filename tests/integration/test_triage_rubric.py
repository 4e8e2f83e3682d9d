"""The three-dimension test rubric (config/rubrics/triage.yaml: evidence 10, diagnosis 20, next steps 30, summed and
scaled to 0-100) through the analytics, the exports and the human labels, offline judge, real PostgreSQL, the API:
nothing assumes four dimensions of 25 points. (Its scoring is in test_rubric_scoring.py, its dashboard card in the
dashboard's vitest ScoreBreakdownCard.test.tsx, its label form in LabelForm.test.tsx.)"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from session_scoring.errors import InvalidRequestError
from session_scoring.models.scores import SCORE_BANDS
from tests.conftest import SAMPLES, Stack
from tests.integration.test_labels_and_agreement import import_csv

ANALYTICS = "/api/v1/scoring/analytics"
SCORES = "/api/v1/scoring/scores"
EXPORT = "/api/v1/scoring/exports/training"
TRIAGE = [("evidence", 10), ("diagnosis", 20), ("next_steps", 30)]
TRIAGE_KEYS = [key for key, _ in TRIAGE]
METHODOLOGY_KEYS = ["logical_flow", "consistency", "tool_relevance", "synthesis_quality"]


def scored_under(stack: Stack) -> dict[str, dict[str, Any]]:
    """Every scorable sample scored by ``stack``'s criteria: each session's score as GET answers it."""
    sessions = [p.stem for p in sorted(SAMPLES.glob("*.json"))]
    requested = [s for s in sessions if stack.request_score(s, force=True).status_code < 300]
    stack.poller.drain()
    scores = {s: stack.score(s).json() for s in requested}
    assert all(score["status"] == "completed" for score in scores.values()), scores
    return scores


def band(total: int) -> str:
    return next(b.band for b in SCORE_BANDS if b.min_score <= total <= b.max_score)


def test_triage_scores_are_counted_by_the_analytics(make_stack: Any) -> None:
    triage: Stack = make_stack(SCORING_RUBRIC="triage")
    scores = scored_under(triage)
    criteria = triage.container.config.criteria_hash

    distribution = triage.client.get(f"{ANALYTICS}/score-distribution", params={"criteria_hash": criteria}).json()
    assert distribution["total"] == len(scores)
    expected = {b.band: sorted(s for s, v in scores.items() if band(v["total_score"]) == b.band) for b in SCORE_BANDS}
    assert {b["band"]: sorted(b["session_ids"]) for b in distribution["bands"]} == expected

    trends = triage.client.get(f"{ANALYTICS}/trends", params={"bucket": "week", "criteria_hash": criteria}).json()
    assert sum(p["count"] for p in trends["points"]) == len(scores)
    weighted = sum(p["mean"] * p["count"] for p in trends["points"])
    assert weighted == sum(v["total_score"] for v in scores.values())

    [usage] = [c for c in triage.client.get(f"{ANALYTICS}/criteria").json() if c["criteria_hash"] == criteria]
    assert usage["completed_sessions"] == len(scores)
    described = triage.client.get(f"/api/v1/scoring/criteria/{criteria}").json()["rubric"]
    assert [(d["key"], d["max_points"]) for d in described["dimensions"]] == TRIAGE
    # no failure-tag vocabulary: the report is empty rather than an error
    tags = triage.client.get(f"{ANALYTICS}/failure-tags", params={"criteria_hash": criteria})
    assert tags.status_code == 200
    assert tags.json()["items"] == []


def test_the_training_export_carries_triages_three_dimensions(make_stack: Any) -> None:
    triage: Stack = make_stack(SCORING_RUBRIC="triage")
    scores = scored_under(triage)

    lines = [json.loads(line) for line in triage.client.get(EXPORT, params={"min_score": 0}).text.splitlines()]

    assert sorted(line["session_id"] for line in lines) == sorted(scores)
    for line in lines:
        score = scores[line["session_id"]]
        assert list(line["score_breakdown"]) == TRIAGE_KEYS
        assert line["score_breakdown"] == {d["key"]: d["points"] for d in score["dimensions"]}
        assert all(0 <= line["score_breakdown"][key] <= top for key, top in TRIAGE)
        assert line["total_score"] == score["total_score"]


def test_the_fleet_csv_has_a_column_per_dimension_of_the_criteria_in_scope(make_stack: Any) -> None:
    methodology: Stack = make_stack()
    methodology_scores = scored_under(methodology)
    triage: Stack = make_stack(SCORING_RUBRIC="triage")
    triage_scores = scored_under(triage)

    def rows(**params: str) -> tuple[list[str], list[dict[str, str]]]:
        response = triage.client.get(SCORES, params={"format": "csv", **params})
        assert response.status_code == 200, response.text
        reader = csv.DictReader(io.StringIO(response.text))
        found = list(reader)
        assert reader.fieldnames is not None
        return list(reader.fieldnames), found

    # the criteria in force (triage): its three dimensions, between the band and the judge's fields
    header, current = rows()
    assert header[header.index("band") + 1 : header.index("scored_at")] == TRIAGE_KEYS
    assert {row["session_id"] for row in current} == set(triage_scores)
    for row in current:
        points = {d["key"]: d["points"] for d in triage_scores[row["session_id"]]["dimensions"]}
        assert {key: int(row[key]) for key in TRIAGE_KEYS} == points

    # the older criteria by their hash: the methodology's four
    header, older = rows(criteria_hash=methodology.container.config.criteria_hash, latest_only="false")
    assert header[header.index("band") + 1 : header.index("scored_at")] == METHODOLOGY_KEYS
    for row in older:
        breakdown = methodology_scores[row["session_id"]]["score_breakdown"]
        assert {key: int(row[key]) for key in METHODOLOGY_KEYS} == breakdown

    # every criteria: the current rubric's columns first, then the other's; a score's missing dimensions are empty
    header, every = rows(criteria_hash="any", latest_only="false")
    assert header[header.index("band") + 1 : header.index("scored_at")] == TRIAGE_KEYS + METHODOLOGY_KEYS
    assert len(every) == len(triage_scores) + len(methodology_scores)
    for row in every:
        mine, theirs = (
            (TRIAGE_KEYS, METHODOLOGY_KEYS)
            if row["criteria_hash"] == triage.container.config.criteria_hash
            else (METHODOLOGY_KEYS, TRIAGE_KEYS)
        )
        assert all(row[key] != "" for key in mine)
        assert all(row[key] == "" for key in theirs)


def test_the_fleet_sorts_by_a_dimension_of_the_rubric_in_scope(make_stack: Any) -> None:
    methodology: Stack = make_stack()
    scored_under(methodology)
    triage: Stack = make_stack(SCORING_RUBRIC="triage")
    triage_scores = scored_under(triage)
    older = methodology.container.config.criteria_hash

    def fleet(**params: str) -> Any:
        return triage.client.get(SCORES, params={"limit": "2", **params})

    def pages(**params: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            answer = fleet(**params, **({"cursor": cursor} if cursor else {}))
            assert answer.status_code == 200, answer.text
            items += answer.json()["items"]
            cursor = answer.json()["next_cursor"]
            if cursor is None:
                return items

    # the current rubric's (triage's) dimension, keyset-paged: descending points, ties by score id
    items = pages(sort="next_steps", order="desc")
    assert {i["session_id"] for i in items} == set(triage_scores)
    points = [i["score_breakdown"]["next_steps"] for i in items]
    assert points == sorted(points, reverse=True)
    ascending = [i["score_breakdown"]["evidence"] for i in pages(sort="evidence", order="asc")]
    assert ascending == sorted(ascending)

    # another rubric's key is refused where it is not in scope, listing the keys that are
    refused = fleet(sort="logical_flow")
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].startswith(
        "sort 'logical_flow' is not one of: total_score, evidence, diagnosis, next_steps, scored_at, session_started_at"
    )
    # ... and accepted under its own criteria, and under every criteria (each rubric in use)
    assert fleet(sort="logical_flow", criteria_hash=older).status_code == 200
    assert fleet(sort="diagnosis", criteria_hash=older).status_code == 422
    every = pages(sort="logical_flow", order="asc", criteria_hash="any", latest_only="false")
    values = [i["score_breakdown"].get("logical_flow") for i in every]
    present = [v for v in values if v is not None]
    assert present == sorted(present)
    assert values == present + [None] * (len(values) - len(present))  # nulls last
    assert fleet(sort="next_steps", criteria_hash="any", latest_only="false").status_code == 200


def test_triage_labels_take_its_keys_and_the_agreement_compares_them(make_stack: Any, tmp_path: Path) -> None:
    triage: Stack = make_stack(SCORING_RUBRIC="triage", SCORING_TRUST_FORWARDED_USER="true")
    session = next(p.stem for p in sorted(SAMPLES.glob("*.json")) if triage.request_score(p.stem).status_code < 300)
    triage.poller.drain()
    judged = {d["key"]: d["points"] for d in triage.score(session).json()["dimensions"]}
    assert list(judged) == TRIAGE_KEYS

    def put(who: str, body: dict[str, Any]) -> Any:
        return triage.client.put(
            f"/api/v1/scoring/sessions/{session}/labels", json=body, headers={"X-Forwarded-User": who}
        )

    mine = {"evidence": 5, "diagnosis": 10, "next_steps": 15}  # 30 of 60: a total of 50
    accepted = put("alice", {"total_score": 50, "score_breakdown": mine})
    assert accepted.status_code == 200, accepted.text
    [current] = triage.client.get(f"/api/v1/scoring/sessions/{session}/labels").json()["current"]
    assert (current["total_score"], current["score_breakdown"]) == (50, mine)

    # the default rubric's four are not triage's: refused, naming the keys (and nothing stored)
    four = dict.fromkeys(METHODOLOGY_KEYS, 20)
    refused = put("bob", {"total_score": 80, "score_breakdown": four})
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] == "invalid_parameters"
    assert refused.json()["detail"] == (
        "score_breakdown lacks evidence, diagnosis, next_steps and has unknown consistency, logical_flow, "
        "synthesis_quality, tool_relevance; the rubric 'triage' has exactly the dimensions evidence (0-10), "
        "diagnosis (0-20), next_steps (0-30) (or leave score_breakdown out)"
    )
    over = put("bob", {"total_score": 100, "score_breakdown": {**mine, "next_steps": 31}})
    assert over.status_code == 422
    assert "score_breakdown.next_steps is 31; next_steps is worth 0-30 points" in over.json()["detail"]
    not_a_map = put("bob", {"total_score": 50, "score_breakdown": {"evidence": "5"}})
    assert not_a_map.status_code == 422  # the shape (a map of whole numbers) is the request model's
    labels = triage.client.get(f"/api/v1/scoring/sessions/{session}/labels").json()
    assert [c["labeller"] for c in labels["current"]] == ["alice"]

    report = triage.client.get("/api/v1/scoring/analytics/agreement").json()
    assert [(d["dimension"], d["n"], d["mean_absolute_error"]) for d in report["dimensions"]] == [
        (key, 1, abs(judged[key] - mine[key])) for key in TRIAGE_KEYS
    ]

    # the CSV import: triage's columns import, the default rubric's are refused naming the column
    good = tmp_path / "triage.csv"
    good.write_text(f"session_id,labeller,total_score,evidence,diagnosis,next_steps\n{session},carol,100,10,20,30\n")
    assert "imported 1 label(s)" in import_csv(triage, good)
    labels = triage.client.get(f"/api/v1/scoring/sessions/{session}/labels").json()
    carol = next(c for c in labels["current"] if c["labeller"] == "carol")
    assert carol["score_breakdown"] == {"evidence": 10, "diagnosis": 20, "next_steps": 30}
    old = tmp_path / "methodology.csv"
    old.write_text(f"session_id,labeller,total_score,{','.join(METHODOLOGY_KEYS)}\n{session},dave,80,20,20,20,20\n")
    with pytest.raises(
        InvalidRequestError, match=r"unknown column\(s\) logical_flow \(line 1, column 4\), consistency"
    ):
        import_csv(triage, old)
