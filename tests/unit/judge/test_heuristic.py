"""The offline heuristic judge: its documented rules, that it discriminates, and that it is deterministic."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from session_scoring.judge.heuristic import HEURISTIC_MODEL, assess
from session_scoring.models.reference import Reference
from session_scoring.models.session import Session
from tests.conftest import FAILING_TOOLS_ID, SAMPLES, SHALLOW_ID, THOROUGH_ID
from tests.support.degraded_twins import TWINS, twin_pairs
from tests.support.labelled_traces import labelled_pairs


def sample(session_id: str) -> Session:
    return Session.model_validate_json((SAMPLES / f"{session_id}.json").read_text())


def session_with(
    steps: list[dict[str, Any]],
    final: str | None,
    tools: list[str] | None = None,
    alert: dict[str, Any] | None = None,
    stages: int = 1,
) -> Session:
    return Session.model_validate(
        {
            "session_id": "h-1",
            "status": "completed",
            "alert": alert or {},
            "available_tools": [{"server": "k8s", "name": n} for n in (tools or [])],
            "stages": [{"name": f"s{i}", "steps": steps} for i in range(stages)],
            "final_analysis": final,
        }
    )


def call(name: str, args: dict[str, Any] | None = None, result: Any = "ok", error: str | None = None) -> dict[str, Any]:
    return {
        "kind": "tool_call",
        "tool_call": {
            "server": "k8s",
            "name": name,
            "arguments": args or {},
            "result": result,
            "success": error is None,
            "error": error,
        },
    }


def thought(text: str) -> dict[str, Any]:
    return {"kind": "reasoning", "text": text}


def test_same_session_always_gets_the_same_verdict() -> None:
    assert assess(sample(SHALLOW_ID)) == assess(sample(SHALLOW_ID))


def test_full_investigations_rank_above_their_degraded_copies_in_every_labelled_pair() -> None:
    pairs = labelled_pairs()
    assert len(pairs) == 30
    assert len({p.trace_format for p in pairs}) >= 5
    wins = [assess(p.better).total_score > assess(p.worse).total_score for p in pairs]
    losers = [f"{p.fixture}/{p.degradation}" for p, won in zip(pairs, wins, strict=True) if not won]
    assert losers == []


@pytest.mark.parametrize("twin", list(TWINS))
def test_originals_rank_above_each_kind_of_degraded_twin_in_at_least_90_percent_of_pairs(twin: str) -> None:
    pairs = [p for p in twin_pairs() if p.twin == twin]
    assert len(pairs) >= 20
    assert len({p.trace_format for p in pairs}) >= 4
    scores = [(assess(p.original).total_score, assess(p.degraded).total_score) for p in pairs]
    losers = [f"{p.investigation}: {o} vs {d}" for p, (o, d) in zip(pairs, scores, strict=True) if o <= d]
    assert (len(pairs) - len(losers)) / len(pairs) >= 0.9, losers


def test_totals_spread_over_the_labelled_set() -> None:
    sessions = {id(s): s for p in labelled_pairs() for s in (p.better, p.worse)}
    totals = [assess(s).total_score for s in sessions.values()]
    most_common = Counter(totals).most_common(1)[0][1]
    assert most_common <= len(totals) // 4, Counter(totals)
    assert max(totals) - min(totals) >= 30


def test_thorough_investigation_outscores_shallow_and_failing_ones() -> None:
    thorough = assess(sample(THOROUGH_ID)).total_score
    assert thorough > assess(sample(SHALLOW_ID)).total_score
    assert thorough > assess(sample(FAILING_TOOLS_ID)).total_score


def test_every_field_is_filled_and_says_it_is_not_an_llm() -> None:
    verdict = assess(sample(SHALLOW_ID))
    assert verdict.total_score == sum(verdict.score_breakdown.values())
    assert "no LLM" in verdict.score_reasoning
    assert HEURISTIC_MODEL == "heuristic-rules-v4"
    assert verdict.missing_tools
    assert verdict.alternative_approaches
    assert all(a.steps for a in verdict.alternative_approaches)


def test_without_a_tools_list_missing_evidence_kinds_and_alternatives_are_still_named() -> None:
    verdict = assess(
        session_with([call("pods_get", {"pod": "web-1"}, "restarts 3")], "web-1 restarts 3", alert={"pod": "web-1"})
    )
    assert {t.tool_name for t in verdict.missing_tools} == {"logs", "metrics", "events", "change history"}
    assert all("web-1" in t.rationale for t in verdict.missing_tools)
    assert verdict.alternative_approaches


def test_unused_forensic_tools_become_missing_tools() -> None:
    verdict = assess(session_with([call("pods_get")], "pod ok", tools=["pods_get", "pods_log", "files_list"]))
    assert {t.tool_name for t in verdict.missing_tools} == {"k8s.pods_log", "k8s.files_list"}


def test_a_stated_hypothesis_followed_by_a_call_scores_logical_flow_and_is_named() -> None:
    steps = [call("pods_log", {"pod": "web-1"}, "OOMKilled at 08:57")]
    plain = assess(session_with(steps, "OOMKilled at 08:57"))
    reasoned = assess(
        session_with([thought("Hypothesis: the pod hits its memory limit."), *steps], "OOMKilled at 08:57")
    )
    assert reasoned.score_breakdown["logical_flow"] > plain.score_breakdown["logical_flow"]
    assert "'Hypothesis: the pod hits its memory limit.' -> k8s.pods_log" in reasoned.score_reasoning


def test_a_failure_never_recovered_costs_points_and_a_recovered_one_does_not() -> None:
    recovered = assess(session_with([call("a", error="boom"), call("b", result="value-123")], "value-123"))
    abandoned = assess(session_with([call("b", result="value-123"), call("a", error="boom")], "value-123"))
    assert abandoned.total_score < recovered.total_score
    assert "k8s.a failed (boom) and no later call recovered it" in abandoned.score_reasoning
    assert "k8s.a failed and the agent turned to k8s.b" in recovered.score_reasoning


def test_only_wasteful_repeats_are_penalised_not_polling_or_retries() -> None:
    once = assess(session_with([call("a", {"x": 1}, "alpha-1")], "alpha-1"))
    wasteful = assess(session_with([call("a", {"x": 1}, "alpha-1")] * 3, "alpha-1"))
    polling = assess(
        session_with(
            [call("a", {"x": 1}, "alpha-1"), call("a", {"x": 1}, "alpha-2"), call("a", {"x": 1}, "alpha-3")], "alpha-3"
        )
    )
    retry = assess(session_with([call("a", {"x": 1}, error="timeout"), call("a", {"x": 1}, "alpha-1")], "alpha-1"))
    across_stages = assess(session_with([call("a", {"x": 1}, "alpha-1")], "alpha-1", stages=3))
    assert "identical calls repeated an earlier success" in wasteful.score_reasoning
    assert wasteful.score_breakdown["logical_flow"] < once.score_breakdown["logical_flow"] + 4
    for verdict in (polling, retry, across_stages):
        assert "identical calls repeated" not in verdict.score_reasoning


def test_covering_the_resources_the_alert_names_scores_tool_relevance() -> None:
    alert = {"namespace": "shop", "pod": "web-1", "host": "node-7"}
    covered = assess(
        session_with([call("pods_get", {"namespace": "shop", "pod": "web-1", "node": "node-7"})], "x", alert=alert)
    )
    partial = assess(session_with([call("pods_get", {"namespace": "shop"})], "x", alert=alert))
    assert covered.score_breakdown["tool_relevance"] > partial.score_breakdown["tool_relevance"]
    assert "never queried: web-1, node-7" in partial.score_reasoning


def test_high_confidence_on_little_evidence_costs_consistency() -> None:
    modest = assess(session_with([call("a", result="pod-x42")], "Likely pod-x42, medium confidence."))
    certain = assess(session_with([call("a", result="pod-x42")], "pod-x42 is DEFINITELY malicious, high confidence."))
    assert certain.score_breakdown["consistency"] < modest.score_breakdown["consistency"]
    assert "claims high confidence on 1 successful call(s)" in certain.score_reasoning


def test_values_cited_from_results_raise_synthesis_and_invented_ones_lower_consistency() -> None:
    steps = [call("a", result={"node": "worker-17", "restarts": 412})]
    cited = assess(session_with(steps, "Root cause on worker-17 after 412 restarts."))
    uncited = assess(session_with(steps, "Something went wrong somewhere."))
    invented = assess(session_with(steps, "Root cause on worker-99 after 9000 restarts."))
    assert cited.score_breakdown["synthesis_quality"] > uncited.score_breakdown["synthesis_quality"]
    assert invented.score_breakdown["consistency"] < cited.score_breakdown["consistency"]
    assert "9000, worker-99" in invented.score_reasoning


def test_no_tool_calls_and_no_analysis_scores_very_low() -> None:
    verdict = assess(session_with([], None, tools=["pods_log"]))
    assert verdict.total_score < 25
    assert json.dumps(verdict.model_dump())


def test_a_failure_written_in_the_output_is_no_evidence_even_when_recorded_as_a_success() -> None:
    steps = [call("pods_log", {"pod": "web-1"}, "OOMKilled at 08:57 after 512Mi")]
    as_text = [call("pods_log", {"pod": "web-1"}, 'Error from server (Forbidden): pods "web-1" is forbidden')]
    alert = {"pod": "web-1"}

    evidence = assess(session_with(steps, "web-1 was OOMKilled at 08:57 after 512Mi", alert=alert))
    failed = assess(session_with(as_text, "web-1 was OOMKilled at 08:57 after 512Mi", alert=alert))

    assert failed.total_score < evidence.total_score
    assert "1 tool call(s), 0 of them successful" in failed.score_reasoning
    assert "k8s.pods_log failed (Error from server (Forbidden)" in failed.score_reasoning


def test_a_conclusion_naming_nothing_the_evidence_holds_is_capped_whatever_its_length_and_advice() -> None:
    steps = [
        thought("Hypothesis: the pod hits its memory limit; check its last state."),
        call("pods_get", {"pod": "web-1"}, "lastState: OOMKilled at 08:57, limit 512Mi, working set 511Mi"),
        thought("Probably a leak since the v2.3 rollout; to confirm, read the rollout history."),
        call("rollout_history", {"deployment": "web"}, "revision 7: image web:2.3 (08:10) enable image cache"),
    ]
    grounded = "web-1 is OOMKilled (511Mi of its 512Mi limit at 08:57) since revision 7, web:2.3, enabled the image "
    grounded += "cache at 08:10. Fix: raise the limit to 1Gi or roll back to revision 6."
    elsewhere = (
        "The root cause is certificate expiry on the ingress controller: the ACME DNS-01 challenge keeps failing "
        "because the Route53 credentials were rotated, so renewal stalled and clients see handshake failures. "
        "Recommended actions: restore the IAM permissions, delete the failed order so it is retried, add an expiry "
        "alert thirty days ahead, and document the rotation procedure so the platform team checks renewals first."
    )

    right = assess(session_with(steps, grounded, alert={"pod": "web-1"}))
    wrong = assess(session_with(steps, elsewhere, alert={"pod": "web-1"}))

    assert len(elsewhere) > 2 * len(grounded)
    assert wrong.score_breakdown["consistency"] <= 8
    assert wrong.score_breakdown["synthesis_quality"] <= 8
    assert right.total_score > wrong.total_score
    assert "of its claims are grounded" in wrong.score_reasoning
    assert "it says what to do, but about a cause the evidence does not show" in wrong.score_reasoning


OOM_CONCLUSION = (
    "The payment-api container was OOMKilled: its memory limit of 256Mi is below the working set since the new "
    "cache was enabled. Raise the limit to 512Mi and roll out."
)


def reference(root_cause: str) -> Reference:
    return Reference(root_cause=root_cause, remediation=None, source="label")


@pytest.mark.parametrize(
    ("root_cause", "outcome"),
    [
        ("OOMKilled: the payment-api container's memory limit of 256Mi was too low for the new cache", "found"),
        ("The payment-api pods were evicted for disk pressure on the node after the image cache grew", "partly_found"),
        ("The database connection pool was exhausted by a slow query on the orders table", "missed"),
    ],
)
def test_the_outcome_compares_the_conclusions_terms_with_the_references(root_cause: str, outcome: str) -> None:
    session = session_with([call("pods_get", result="OOMKilled 256Mi")], OOM_CONCLUSION)

    verdict = assess(session, reference(root_cause))

    assert verdict.outcome == outcome
    assert verdict.outcome_reason.startswith("the conclusion names ")
    assert verdict.total_score == assess(session).total_score  # the outcome moves no method point


def test_the_outcome_reason_names_the_terms_found_and_not_found() -> None:
    session = session_with([], OOM_CONCLUSION)

    verdict = assess(session, reference("payment-api exhausted its 256Mi limit; a leak in the redis client"))

    assert "payment-api" in verdict.outcome_reason
    assert "256mi" in verdict.outcome_reason
    assert "; not " in verdict.outcome_reason
    assert "redis" in verdict.outcome_reason


def test_without_a_reference_or_a_conclusion_the_outcome_says_so() -> None:
    assert assess(session_with([], OOM_CONCLUSION)).outcome == "no_reference"
    empty = assess(session_with([], None), reference("memory limit too low"))
    assert (empty.outcome, empty.outcome_reason) == (
        "missed",
        "the session has no final analysis to compare with the reference root cause",
    )
    vague = assess(session_with([], OOM_CONCLUSION), reference("it was the cause"))
    assert vague.outcome == "missed"
    assert "names no specific value or distinctive word" in vague.outcome_reason
