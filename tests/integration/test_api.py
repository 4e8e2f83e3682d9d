"""API behaviour beyond the main flow: errors, listing, criteria, health, the OpenAPI contract."""

from __future__ import annotations

from typing import Any

from tests.conftest import IN_PROGRESS_ID, SHALLOW_ID, THOROUGH_ID, Stack

HEALTH_DETAILS = "/api/v1/scoring/health/details"


def test_get_score_of_a_never_scored_session_is_404(stack: Stack) -> None:
    response = stack.score(THOROUGH_ID)
    assert response.status_code == 404
    assert response.json()["code"] == "score_not_found"
    assert stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").status_code == 404


def test_scoring_disabled_is_503_and_stores_nothing(make_stack: Any) -> None:
    stack = make_stack(SCORING_ENABLED="false")
    response = stack.request_score(THOROUGH_ID)
    assert response.status_code == 503
    assert "SCORING_ENABLED" in response.json()["detail"]
    assert stack.container.score_repository.count_by_status() == {}


def test_unreachable_queue_is_503_and_leaves_no_pending_attempt(make_stack: Any, moto_endpoint: str) -> None:
    stack = make_stack(SCORING_QUEUE_URL=f"{moto_endpoint}/000000000000/no-such-queue")
    response = stack.request_score(THOROUGH_ID)

    assert response.status_code == 503
    assert response.json()["code"] == "queue_unavailable"
    attempt = stack.score(THOROUGH_ID).json()
    assert attempt["status"] == "failed"
    assert "could not queue" in attempt["error_message"]
    assert stack.container.score_repository.active_for_session(THOROUGH_ID) is None


def test_invalid_session_id_and_unknown_fields_are_422(stack: Stack) -> None:
    assert stack.client.post("/api/v1/scoring/sessions/bad%20id!/score").status_code == 422
    too_long = "a" * 200
    assert stack.client.post(f"/api/v1/scoring/sessions/{too_long}/score").status_code == 422
    response = stack.client.post(f"/api/v1/scoring/sessions/{THOROUGH_ID}/score", json={"force": True})
    assert response.status_code == 422
    assert response.json()["code"] == "validation_error"


def test_session_list_pages_and_shows_each_latest_attempt(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    stack.request_score(SHALLOW_ID)

    page = stack.client.get("/api/v1/scoring/sessions", params={"page": 1, "page_size": 2}).json()
    assert page["total_items"] == 4
    assert page["total_pages"] == 2
    assert len(page["items"]) == 2
    everything = stack.client.get("/api/v1/scoring/sessions", params={"page_size": 10}).json()["items"]
    by_id = {item["session_id"]: item for item in everything}
    assert by_id[THOROUGH_ID]["score"]["status"] == "completed"
    assert by_id[THOROUGH_ID]["score"]["is_current_criteria"] is True
    assert by_id[SHALLOW_ID]["score"]["status"] == "pending"
    assert by_id[IN_PROGRESS_ID]["score"] is None
    assert by_id[IN_PROGRESS_ID]["status"] == "in_progress"


def test_scores_from_older_criteria_are_flagged(make_stack: Any) -> None:
    stack = make_stack()
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    old = stack.score(THOROUGH_ID).json()

    newer = make_stack(SCORING_LLM_MODEL="heuristic-rules-v1-strict")
    flagged = newer.score(THOROUGH_ID).json()
    assert flagged["criteria_hash"] == old["criteria_hash"]
    assert flagged["is_current_criteria"] is False

    rescored = newer.request_score(THOROUGH_ID, force=True)
    assert rescored.status_code == 202
    newer.poller.drain()
    latest = newer.score(THOROUGH_ID).json()
    assert latest["is_current_criteria"] is True
    assert latest["criteria_hash"] != old["criteria_hash"]


def test_current_criteria_and_health(stack: Stack) -> None:
    criteria = stack.client.get("/api/v1/scoring/criteria/current").json()
    assert criteria["criteria_hash"] == stack.container.config.criteria_hash
    assert criteria["llm_provider"] == "heuristic"
    assert "{{SESSION_CONVERSATION}}" in criteria["criteria_content"]["judge_prompt"]
    assert criteria["created_at"] is not None

    assert stack.client.get("/health").json() == {"status": "ok"}  # the status alone, for anyone
    health = stack.client.get(HEALTH_DETAILS).json()
    assert health["status"] == "ok"
    assert health["criteria_hash"] == criteria["criteria_hash"]


def test_requester_is_api_client_unless_a_trusted_proxy_says_otherwise(make_stack: Any) -> None:
    untrusted = make_stack()
    untrusted.request_score(THOROUGH_ID, **{"X-Forwarded-User": "mallory"})
    assert untrusted.score(THOROUGH_ID).json()["scored_triggered_by"] == "api-client"

    trusted = make_stack(SCORING_TRUST_FORWARDED_USER="true")
    trusted.request_score(SHALLOW_ID, **{"X-Forwarded-Email": "alice@example.com"})
    assert trusted.score(SHALLOW_ID).json()["scored_triggered_by"] == "alice@example.com"


def test_openapi_documents_every_status_of_the_score_endpoint(stack: Stack) -> None:
    spec = stack.client.get("/openapi.json").json()
    post = spec["paths"]["/api/v1/scoring/sessions/{session_id}/score"]["post"]
    assert {"200", "202", "400", "404", "422", "503"} <= set(post["responses"])
    assert stack.client.get("/docs").status_code == 200


def test_session_list_filters_by_status(stack: Stack) -> None:
    completed = stack.client.get("/api/v1/scoring/sessions", params={"status": "completed"}).json()
    assert completed["total_items"] == 3
    assert {item["status"] for item in completed["items"]} == {"completed"}

    both = stack.client.get("/api/v1/scoring/sessions", params=[("status", "completed"), ("status", "in_progress")])
    assert both.json()["total_items"] == 4
    assert stack.client.get("/api/v1/scoring/sessions", params={"status": "done"}).status_code == 422


def test_health_is_ok_with_the_circuit_closed_and_the_queue_reachable(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)

    health = stack.client.get(HEALTH_DETAILS).json()

    assert (health["status"], health["problems"]) == ("ok", [])
    assert health["judge_circuit"] == "CLOSED"
    assert health["queued_jobs"] == 1


def test_health_is_degraded_while_the_judges_circuit_is_open(stack: Stack) -> None:
    import time

    breaker = stack.container.breaker
    breaker._persistence.save_open(breaker.circuit_name, failure_count=5, opened_at=int(time.time()))

    response = stack.client.get(HEALTH_DETAILS)

    assert stack.client.get("/health").json() == {"status": "degraded"}
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["judge_circuit"] == "OPEN"
    assert "circuit is open" in response.json()["problems"][0]


def test_health_is_degraded_when_the_queue_cannot_be_reached(make_stack: Any) -> None:
    stack = make_stack(SCORING_QUEUE_URL=make_stack().env["SCORING_QUEUE_URL"] + "-gone")

    health = stack.client.get(HEALTH_DETAILS).json()

    assert health["status"] == "degraded"
    assert health["queued_jobs"] is None
    assert "the scoring queue cannot be reached" in health["problems"][0]


def test_an_unknown_session_is_404_without_naming_where_sessions_live(stack: Stack) -> None:
    response = stack.request_score("no-such-session")

    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "no-such-session" in detail
    assert stack.env["SCORING_SESSIONS_DIR"] not in detail
    assert "/" not in detail.replace("no-such-session", "")


def test_head_answers_as_get_without_a_body(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    score_url = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"

    for url, status in ((score_url, 200), (f"/api/v1/scoring/sessions/{SHALLOW_ID}/score", 404), ("/health", 200)):
        got, head = stack.client.get(url), stack.client.head(url)
        assert (head.status_code, head.content) == (status, b""), url
        assert got.status_code == status
        assert got.content
        assert head.headers["content-type"] == got.headers["content-type"]
        assert head.headers["content-length"] == got.headers["content-length"]
