"""A local HTTP server that speaks TARSy's session APIs (tarsy-bot History API and the Go API), for tests.

The real ``httpx`` client of the ``tarsy``/``tarsy-go`` sources is pointed at it through ``base_url``. Tests load
sessions (documents in TARSy's own shapes), script failures for the next requests on a path (a status, a delay past
the read timeout, a body that is not JSON) and read back the requests, with their headers, that reached it.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json


@dataclass
class TarsyReply:
    """A scripted answer: a status with a JSON body, raw text, and an optional delay before answering."""

    status: int = 200
    body: Any = None
    raw: str | None = None
    delay_seconds: float = 0.0


@dataclass
class RecordedRequest:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str] = field(default_factory=dict)


class FakeTarsy(LoopbackHttpServer):
    """Clients point at ``base_url``. Serves loaded sessions; scripted replies for a path are used first."""

    def __init__(self, token: str | None = None) -> None:
        super().__init__()
        self.token = token
        self.detailed: dict[str, dict[str, Any]] = {}
        self.go_sessions: dict[str, tuple[dict[str, Any], Any]] = {}
        self.scripted: dict[str, deque[TarsyReply]] = defaultdict(deque)
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()

    def add_detailed(self, document: dict[str, Any]) -> None:
        """A tarsy-bot ``DetailedSession``, served at /api/v1/history/sessions/{id} and in the list."""
        self.detailed[document["session_id"]] = document

    def add_go(self, session: dict[str, Any], timeline: Any) -> None:
        """A Go session detail and its timeline, served at /api/v1/sessions/{id}[/timeline] and in the list."""
        self.go_sessions[session["id"]] = (session, timeline)

    def script(self, path: str, *replies: TarsyReply) -> None:
        with self._lock:
            self.scripted[path].extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.detailed.clear()
            self.go_sessions.clear()
            self.scripted.clear()
            self.requests.clear()
            self.token = None

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def _scripted(self, path: str) -> TarsyReply | None:
        with self._lock:
            queue = self.scripted.get(path)
            return queue.popleft() if queue else None

    def _route(self, path: str, query: dict[str, list[str]]) -> TarsyReply:
        history = "/api/v1/history/sessions"
        go = "/api/v1/sessions"
        if path == history:
            return TarsyReply(body=self._bot_list(query))
        if path.startswith(history + "/"):
            document = self.detailed.get(path.removeprefix(history + "/"))
            return TarsyReply(body=document) if document else _not_found()
        if path == go:
            return TarsyReply(body=self._go_list(query))
        if path.startswith(go + "/"):
            rest = path.removeprefix(go + "/")
            session_id, _, tail = rest.partition("/")
            found = self.go_sessions.get(session_id)
            if found is None or tail not in ("", "timeline"):
                return _not_found()
            return TarsyReply(body=found[1] if tail == "timeline" else found[0])
        return _not_found()

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]]) -> tuple[list[dict[str, Any]], Any]:
        page = int(query.get("page", ["1"])[0])
        size = int(query.get("page_size", ["20"])[0])
        start = (page - 1) * size
        pagination = {
            "page": page,
            "page_size": size,
            "total_pages": max(1, math.ceil(len(items) / size)),
            "total_items": len(items),
        }
        return items[start : start + size], pagination

    def _bot_list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        statuses = set(query.get("status", []))
        overviews = [
            {
                key: doc.get(key)
                for key in (
                    "session_id",
                    "alert_type",
                    "agent_type",
                    "status",
                    "author",
                    "started_at_us",
                    "completed_at_us",
                    "error_message",
                    "chain_id",
                )
            }
            for doc in sorted(self.detailed.values(), key=lambda d: d.get("started_at_us") or 0, reverse=True)
            if not statuses or doc["status"] in statuses
        ]
        page, pagination = self._page(overviews, query)
        return {"sessions": page, "pagination": pagination, "filters_applied": {"status": sorted(statuses)}}

    def _go_list(self, query: dict[str, list[str]]) -> dict[str, Any]:
        statuses = {s for raw in query.get("status", []) for s in raw.split(",") if s}
        items = [
            {key: session.get(key) for key in ("id", "alert_type", "chain_id", "status", "author", "created_at")}
            for session, _ in self.go_sessions.values()
            if not statuses or session["status"] in statuses
        ]
        page, pagination = self._page(items, query)
        return {"sessions": page, "pagination": pagination}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                url = urlparse(self.path)
                query = parse_qs(url.query)
                with fake._lock:
                    fake.requests.append(
                        RecordedRequest(url.path, query, {k.lower(): v for k, v in self.headers.items()})
                    )
                reply = fake._scripted(url.path)
                if reply is None:
                    if fake.token and self.headers.get("authorization") != f"Bearer {fake.token}":
                        reply = TarsyReply(401, {"detail": "Not authenticated"})
                    else:
                        reply = fake._route(url.path, query)
                if reply.delay_seconds:
                    time.sleep(reply.delay_seconds)
                data = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode()
                send_json(self, reply.status, data)

        return Handler


def quick_client_options(token: str, /, **options: Any) -> dict[str, Any]:
    """A JSON client's options against a loopback fake: ``token``, a 2 s read timeout and two retries without delay,
    unless ``options`` say otherwise."""
    return {"token": token, "read_timeout_seconds": 2.0, "max_retries": 2, "retry_base_seconds": 0} | options


def _not_found() -> TarsyReply:
    return TarsyReply(404, {"detail": "Session not found"})
