"""Sessions read from real Phoenix and MLflow servers, scored through the service, verdicts written back to them.

The agents' traces are sent with the stores' own clients (OpenTelemetry's OTLP exporter for Phoenix, in both the
GenAI and the OpenInference conventions; ``mlflow.start_span`` for MLflow), from the stores' environment, never the
service's. The service reads them through its ``phoenix``/``mlflow`` sources and the local stack (real PostgreSQL,
moto's SQS and DynamoDB, the heuristic judge); what it wrote back is read with the stores' own clients (Phoenix's
client, ``mlflow.get_trace``). Nothing of either store is mocked; the fault tests put a proxy in front of the real
store that answers 503 to the verdict's write while asked to.

``make trace-stores`` runs this module and prints
``trace-stores: phoenix traces N scored N annotated N; mlflow traces N scored N assessed N``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from devstack.queue_poller import QueuePoller
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.scores import band_for
from tests.conftest import Stack
from tests.support.postgres import sql
from tests.support.trace_store_servers import FIXTURES, FaultProxy, StoreServer, investigations, run_agents

pytestmark = pytest.mark.trace_stores

WRITER = "session-scoring"
NAME = "session_score"
DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
STORES = ("phoenix", "mlflow")


def _send(python: Path, kind: str, server: StoreServer, name: str) -> tuple[str, list[dict[str, Any]]]:
    """Send every investigation to the store as one trace each: (the project or experiment id, the traces)."""
    if kind == "phoenix":
        return name, run_agents(python, "send-phoenix", server.url, name, str(FIXTURES))
    sent = run_agents(python, "send-mlflow", server.url, name, str(FIXTURES))
    return str(sent["experiment_id"]), sent["traces"]


def _read_back(python: Path, kind: str, server: StoreServer, project: str, ids: list[str]) -> dict[str, Any]:
    if kind == "phoenix":
        found: dict[str, Any] = run_agents(python, "read-phoenix", server.url, project, *ids)
    else:
        found = run_agents(python, "read-mlflow", server.url, *ids)
    return found


def _store_env(kind: str, url: str, project: str) -> dict[str, str]:
    return {
        "SCORING_SESSION_SOURCE": kind,
        "SCORING_SOURCE_URL": url,
        "SCORING_TRACE_STORE_PROJECT": project,
        "SCORING_WRITEBACK": "true",
        "SCORING_RUN_PAGE_SIZE": "4",  # a run plans several pages: page N of a cursor-paged store
        "SCORING_SOURCE_RETRY_BASE_SECONDS": "0",
    }


def _ours(values: list[dict[str, Any]], score_id: str) -> dict[str, dict[str, Any]]:
    """The values one attempt wrote, by name (Phoenix annotations or MLflow assessments)."""
    return {v["name"]: v for v in values if (v.get("metadata") or {}).get("score_id") == score_id}


def _matches(kind: str, written: dict[str, dict[str, Any]], score: dict[str, Any]) -> bool:
    """The attempt's values are exactly the total and one per dimension, with the score's numbers."""
    if set(written) != {NAME, *(f"{NAME}.{d}" for d in DIMENSIONS)}:
        return False
    total = written[NAME]
    band = band_for(score["total_score"]).band
    numbers = {name: value["score" if kind == "phoenix" else "value"] for name, value in written.items()}
    expected = {NAME: score["total_score"], **{f"{NAME}.{d}": score["score_breakdown"][d] for d in DIMENSIONS}}
    if numbers != expected or total["metadata"].get("criteria_hash") != score["criteria_hash"]:
        return False
    if kind == "phoenix":
        return bool(
            total["label"] == band
            and total["explanation"] == score["score_reasoning"]
            and total["identifier"] == f"{WRITER}:{score['score_id']}"
            and total["annotator_kind"] == "LLM"
        )
    return bool(
        total["metadata"].get("band") == band
        and total["rationale"] == score["score_reasoning"]
        and total["source_type"] == "LLM_JUDGE"
    )


def _listed(stack: Stack) -> list[str]:
    """Every session the service lists from the store, page after page (the store's totals are not known)."""
    ids: list[str] = []
    for page in range(1, 20):
        answer = stack.client.get("/api/v1/scoring/sessions", params={"page": page, "page_size": 4})
        assert answer.status_code == 200, answer.text
        items = answer.json()["items"]
        ids += [item["session_id"] for item in items]
        if len(items) < 4:
            break
    return ids


def _runs_poller(stack: Stack) -> QueuePoller:
    from functions.scorer.app import handler

    return QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=10, wait_seconds=0)


def _tool_calls_shown(stack: Stack, trace_id: str) -> tuple[list[tuple[str, bool, str | None]], str | None]:
    """What the dashboard's session view shows: each tool call (qualified name, success, error), the answer."""
    answer = stack.client.get(f"/api/v1/scoring/sessions/{trace_id}")
    assert answer.status_code == 200, answer.text
    detail = answer.json()
    calls = [step["tool_call"] for stage in detail["stages"] for step in stage["steps"] if step["kind"] == "tool_call"]
    shown = [(f"{c['server']}.{c['name']}", c["success"], c["error"]) for c in calls]
    return shown, detail["final_analysis"]


def _assert_shown_as_sent(stack: Stack, trace_id: str, investigation: dict[str, Any]) -> None:
    shown, answer = _tool_calls_shown(stack, trace_id)
    assert [(name, ok) for name, ok, _ in shown] == [(s["tool"], "error" not in s) for s in investigation["steps"]]
    for (_, _, error), step in zip(shown, investigation["steps"], strict=True):
        if "error" in step:
            assert error is not None
            assert step["error"] in error
    assert answer == investigation["answer"]


def _round_trip(kind: str, make_stack: Any, python: Path, server: StoreServer) -> tuple[int, int, int]:
    """Send the traces, score them with a run, read the verdicts back: (traces, scored, written back)."""
    project, sent = _send(python, kind, server, f"agents-{uuid.uuid4().hex[:8]}")
    by_key = {i["key"]: i for i in investigations()}
    stack: Stack = make_stack(**_store_env(kind, server.url, project))

    listed = _listed(stack)
    assert sorted(listed) == sorted(t["trace_id"] for t in sent)
    for trace in sent:
        _assert_shown_as_sent(stack, trace["trace_id"], by_key[trace["key"]])

    run = stack.client.post("/api/v1/scoring/runs", json={"max_sessions": 100, "name": f"{kind} round trip"})
    assert run.status_code == 202, run.text
    _runs_poller(stack).drain(max_batches=200)
    finished = stack.client.get(f"/api/v1/scoring/runs/{run.json()['run_id']}").json()
    assert finished["status"] == "completed", finished

    scores = {t["trace_id"]: stack.score(t["trace_id"]).json() for t in sent}
    scored = [s for s in scores.values() if s["status"] == "completed"]
    assert all(s["writeback"]["status"] == "written" for s in scored), [s["writeback"] for s in scored]
    found = _read_back(python, kind, server, project, list(scores))
    written = [
        trace_id
        for trace_id, score in scores.items()
        if score["status"] == "completed" and _matches(kind, _ours(found[trace_id], score["score_id"]), score)
    ]
    return len(listed), len(scored), len(written)


def test_every_trace_of_each_store_is_scored_by_a_run_and_its_verdict_written_back(
    make_stack: Any, stores: dict[str, StoreServer], store_python: Path
) -> None:
    counts = {kind: _round_trip(kind, make_stack, store_python, stores[kind]) for kind in STORES}

    phoenix, mlflow = counts["phoenix"], counts["mlflow"]
    print(
        f"\ntrace-stores: phoenix traces {phoenix[0]} scored {phoenix[1]} annotated {phoenix[2]}; "
        f"mlflow traces {mlflow[0]} scored {mlflow[1]} assessed {mlflow[2]}",
        flush=True,
    )
    for kind, (traces, scored, written) in counts.items():
        assert traces >= 5, kind
        assert traces == scored == written, (kind, counts[kind])


# ---------------------------------------------------------------------------------------------------- the faults


@pytest.fixture(params=STORES)
def faulty_store(
    request: pytest.FixtureRequest, stores: dict[str, StoreServer]
) -> Iterator[tuple[str, StoreServer, FaultProxy]]:
    """One store behind a fault proxy: (kind, the real server, the proxy the service talks to)."""
    kind = str(request.param)
    proxy = FaultProxy(stores[kind].url).start()
    try:
        yield kind, stores[kind], proxy
    finally:
        proxy.stop()


def _writebacks(stack: Stack) -> dict[str, dict[str, Any]]:
    rows = sql(
        stack.env["SCORING_DATABASE_URL"],
        "SELECT s.session_id, w.status, w.tries FROM score_writebacks w "
        "JOIN session_scores s ON s.score_id = w.score_id",
    )
    return {row.session_id: dict(row._mapping) for row in rows}


def _deliver_again(stack: Stack, score: dict[str, Any]) -> None:
    job = ScoringJob(
        score_id=score["score_id"],
        session_id=score["session_id"],
        requested_by="redelivery",
        requested_at=datetime.now(UTC),
    )
    stack.sqs.send_message(QueueUrl=stack.resources.queue_url, MessageBody=job.model_dump_json())


def test_a_store_answering_5xx_leaves_the_scores_completed_and_the_write_back_retried_once_per_attempt(
    make_stack: Any, store_python: Path, faulty_store: tuple[str, StoreServer, FaultProxy]
) -> None:
    kind, server, proxy = faulty_store
    project, sent = _send(store_python, kind, server, f"faults-{uuid.uuid4().hex[:8]}")
    ids = [t["trace_id"] for t in sent]
    stack: Stack = make_stack(**_store_env(kind, proxy.base_url, project))

    # The store refuses every write: the scores complete, their write-backs wait for a retry, the circuit stays shut.
    proxy.fail_writes = 503
    for trace_id in ids:
        assert stack.request_score(trace_id).status_code == 202
    stack.poller.drain()
    scores = {trace_id: stack.score(trace_id).json() for trace_id in ids}
    assert {s["status"] for s in scores.values()} == {"completed"}
    for score in scores.values():
        writeback = score["writeback"]
        assert (writeback["sink"], writeback["status"], writeback["tries"]) == (kind, "retrying", 1)
        assert "503" in writeback["error_message"]
        assert "injected by the fault proxy" in writeback["error_message"]
    assert len(proxy.refused) == len(ids)  # more than the breaker's threshold of consecutive failures
    assert stack.client.get("/api/v1/scoring/health/details").json()["judge_circuit"] == "CLOSED"
    assert not any(
        _ours(v, scores[t]["score_id"]) for t, v in _read_back(store_python, kind, server, project, ids).items()
    )

    # The store is back: the queue's next delivery writes each verdict.
    proxy.fail_writes = None
    assert stack.poller.make_deferred_visible() == len(ids)
    stack.poller.drain()
    after = {trace_id: stack.score(trace_id).json() for trace_id in ids}
    assert {(s["writeback"]["status"], s["writeback"]["tries"]) for s in after.values()} == {("written", 2)}
    found = _read_back(store_python, kind, server, project, ids)
    assert all(_matches(kind, _ours(found[t], after[t]["score_id"]), after[t]) for t in ids)

    # Delivered again: nothing is written twice, not even when the record of the write was lost.
    sql(
        stack.env["SCORING_DATABASE_URL"],
        "UPDATE score_writebacks SET status = 'retrying' WHERE score_id = :id",
        id=after[ids[0]]["score_id"],
    )
    for trace_id in ids:
        _deliver_again(stack, after[trace_id])
    stack.poller.drain()
    tries = {t: w["tries"] for t, w in _writebacks(stack).items()}
    assert tries == {t: 3 if t == ids[0] else 2 for t in ids}
    again = _read_back(store_python, kind, server, project, ids)
    for trace_id in ids:
        assert len(_ours(again[trace_id], after[trace_id]["score_id"])) == 1 + len(DIMENSIONS)
        assert len([v for v in again[trace_id] if v["name"] == NAME]) == 1
    assert stack.score(ids[0]).json()["writeback"]["status"] == "written"
