"""The offline judge on investigations it was not tuned on: the second sample's families (eight of them) in a tuned
and a held-out split (``tests/support/degraded_twins.py``), each against its degraded twins; a conclusion naming
nothing the evidence contains loses whatever its length or confidence; severity comes only from the alert (fact 11).
"""

from __future__ import annotations

import pytest

from session_scoring.judge.heuristic import assess
from session_scoring.models.session import Session, Stage, Step
from tests.support.degraded_twins import SPLITS, TWINS, family_investigations, twin_pairs

UNRELATED = (
    "Root cause: the primary etcd member etcd-2 on control-plane node cp-3 lost quorum after its WAL disk "
    "(nvme1n1) hit 100% at 03:14:07 UTC, so kube-apiserver returned 'etcdserver: request timed out' to every "
    "controller. Confidence: high, definitely confirmed. Compact and defragment etcd, grow the WAL volume to 64Gi, "
    "and add an alert on etcd_mvcc_db_total_size_in_bytes. "
)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("twin", list(TWINS))
def test_originals_rank_above_their_twins_in_at_least_90_percent_of_pairs_in_each_split(split: str, twin: str) -> None:
    pairs = [p for p in twin_pairs(family_investigations(split)) if p.twin == twin]
    scores = [(assess(p.original).total_score, assess(p.degraded).total_score) for p in pairs]
    losers = [f"{p.investigation}: {o} vs {d}" for p, (o, d) in zip(pairs, scores, strict=True) if o <= d]

    assert len(pairs) >= 4
    assert (len(pairs) - len(losers)) / len(pairs) >= 0.9, losers


def test_the_splits_cover_eight_families_and_a_third_is_held_out() -> None:
    tuned, held_out = (family_investigations(split) for split in SPLITS)
    families = {item.name.split("--")[0] for item in tuned + held_out}

    assert len(families) >= 8
    assert len(held_out) * 3 >= len(tuned) + len(held_out)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("repeats", [1, 6])
def test_a_conclusion_naming_nothing_the_evidence_contains_loses_whatever_its_length_and_confidence(
    split: str, repeats: int
) -> None:
    for item in family_investigations(split):
        wrong = item.session.model_copy(update={"final_analysis": UNRELATED * repeats})

        assert assess(item.session).total_score > assess(wrong).total_score, item.name


def _with_task(session: Session, task: str, alert: dict[str, object]) -> Session:
    stages = [Stage(name="conversation", steps=[Step(kind="message", text=f"User: {task}"), *session.stages[0].steps])]
    return session.model_copy(update={"stages": stages, "alert": alert})


def test_fact_11_severity_comes_from_the_alert_never_from_words_of_the_prompt() -> None:
    (item,) = [i for i in family_investigations("tuned") if i.name == "mini-swe-agent--backup-cronjob"]
    boilerplate = "**CRITICAL REQUIREMENTS:** answer in English and cite your evidence."

    without_alert = assess(_with_task(item.session, boilerplate, {})).score_reasoning
    labelled = assess(_with_task(item.session, boilerplate, {"labels": {"severity": "critical"}})).score_reasoning

    assert "expected for an unknown-severity alert" in without_alert
    assert "expected for a critical-severity alert" in labelled
