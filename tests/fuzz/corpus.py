"""The hostile corpus: every route of the API with one slot at a time (a path segment, a query parameter, a field of
the JSON body) replaced by a hostile value, plus requests that are hostile as a whole (wrong methods, encoded
paths, a malformed ``Content-Length``, deeply nested and oversized uploads, coercible JSON types).

Each request carries what a right answer is: never a 5xx; a 4xx is the service's JSON error (``code``, ``detail``);
a 405 names the allowed methods in ``Allow``; and, where the behaviour is specified, the one status that is right
(``expect``). The campaign adds what is true of every write: an error stores nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tests.conftest import IN_PROGRESS_ID, SAMPLES, THOROUGH_ID

API = "/api/v1/scoring"
REFUSED = frozenset({400, 422})
"""A refusal of a malformed body: unparseable (400) or invalid (422)."""
UNPROCESSABLE = frozenset({422})
NOT_FOUND = frozenset({404})
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True)
class Request:
    label: str
    """What is hostile about it (the failure's ``input``), e.g. ``NUL in query agent``."""
    route: str
    """Method and route template, e.g. ``GET /api/v1/scoring/scores``."""
    method: str
    target: str
    """Path and query, percent-encoded as it goes on the wire."""
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    expect: frozenset[int] | None = None
    """The statuses that are right for it; None: any answer but a 5xx."""
    allow: tuple[str, ...] = ()
    """For a wrong method: the methods ``Allow`` must name."""
    protocol_level: bool = False
    """Malformed HTTP: the server's HTTP parser may answer it (a plain-text 400) before the application sees it."""
    withheld: tuple[str, ...] = ()
    """Text the answer must not carry (an internal address, an exception class)."""

    @property
    def writes(self) -> bool:
        return self.method != "GET"

    def describe(self) -> str:
        return f"{self.method} {self.target[:160]} ({self.label})"


# ---- hostile values ------------------------------------------------------------------------------------------------

URL_VALUES: tuple[tuple[str, bytes], ...] = (
    ("NUL", b"a\x00b"),
    ("NUL alone", b"\x00"),
    ("NUL at the end", b"KubernetesAgent\x00"),
    ("percent-encoded NUL text", b"%00"),
    ("overlong (300)", b"y" * 300),
    ("overlong (8,000)", b"x" * 8_000),
    ("empty", b""),
    ("blank", b" "),
    ("invalid UTF-8 0xFF", b"\xff\xfe"),
    ("overlong UTF-8 dot", b"\xc0\xae\xc0\xae"),
    ("UTF-8 surrogate", b"\xed\xa0\x80"),
    ("emoji", "\U0001f9ea".encode()),
    ("right-to-left override", "ab\u202ecd".encode()),
    ("zero-width space and BOM", "\u200b\ufeffx".encode()),
    ("combining characters", ("e" + "\u0301" * 50).encode()),
    ("non-ASCII digits", "\u0661\u0662".encode()),
    ("full-width digit", "\uff11".encode()),
    ("largest code point", "\U0010ffff".encode()),
    ("slash", b"a/b"),
    ("dot segments", b"../../criteria/current"),
    ("backslash", b"..\\..\\x"),
    ("CRLF header injection", b"x\r\nX-Injected: 1"),
    ("semicolon parameter", b"a;jsessionid=1"),
    ("SQL quote", b"' OR '1'='1' --"),
    ("LIKE wildcards", b"%_%"),
    ("CSV formula", b'=HYPERLINK("http://127.0.0.1/x")'),
    ("format string", b"%s%n{0}${x}"),
    ("integer past int64", b"9223372036854775808"),
    ("page past int64 offsets", b"6147359712039411712"),
    ("huge integer", b"5199353636472796719971137748992"),
    ("negative", b"-1"),
    ("zero", b"0"),
    ("1e30", b"1e30"),
    ("NaN", b"NaN"),
    ("Infinity", b"Infinity"),
    ("float", b"1.5"),
    ("hex", b"0x10"),
    ("boolean word", b"yes"),
    ("year 0 date", b"0000-01-01T00:00:00Z"),
    ("year 10000 date", b"10000-01-01T00:00:00Z"),
    ("date with NUL", b"2026-01-01T00:00:00Z\x00"),
)
"""Values for a path segment or a query parameter, as bytes (percent-encoded on the wire)."""

NUL_LABELS = frozenset(label for label, value in URL_VALUES if b"\x00" in value)

_NESTED_300: Any = "x"
for _ in range(300):
    _NESTED_300 = [_NESTED_300]

BODY_VALUES: tuple[tuple[str, Any], ...] = (
    ("NUL", "a\x00b"),
    ("NUL alone", "\x00"),
    ("overlong (300)", "y" * 300),
    ("overlong (3,000)", "z" * 3_000),
    ("lone surrogate", "\ud800"),
    ("emoji", "\U0001f9ea"),
    ("right-to-left override", "ab\u202ecd"),
    ("CSV formula", '=HYPERLINK("http://127.0.0.1/x")'),
    ("SQL quote", "' OR '1'='1' --"),
    ("empty", ""),
    ("1e30", 1e30),
    ("Infinity", float("inf")),
    ("-Infinity", float("-inf")),
    ("NaN", float("nan")),
    ("integer past int64", 2**63),
    ("huge integer", 10**40),
    ("negative", -1),
    ("zero", 0),
    ("negative zero", -0.0),
    ("float", 1.5),
    ("number as string", "5"),
    ("boolean as string", "yes"),
    ("boolean as number", 1),
    ("true", True),
    ("null", None),
    ("empty list", []),
    ("empty object", {}),
    ("nested 300 deep", _NESTED_300),
)
"""Values for a field of a JSON body (``json.dumps`` writes Infinity and NaN as the non-standard tokens)."""

NON_STANDARD_JSON = frozenset({"Infinity", "-Infinity", "NaN"})
COERCIBLE_TO = {
    "bool": frozenset({"number as string", "boolean as string", "boolean as number", "true as string"}),
    "int": frozenset({"number as string", "boolean as string"}),
}
"""Values of another JSON type that a lax parser would coerce into a boolean or an integer field."""
FIELD_TYPES = {"dry_run": "bool", "force_rescore": "bool", "max_sessions": "int", "total_score": "int"}


def encode(value: bytes) -> str:
    return quote(value, safe="")


# ---- the routes and their baselines --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Targets:
    """Ids the baselines point at: the canaries' for reads, the campaign's own uploads for writes."""

    read_session: str
    write_session: str
    """An uploaded session the campaign may re-score and label."""
    run_id: str
    tool: str
    criteria_hash: str


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    body: Any = None
    """The JSON body of the baseline (None: no body)."""
    named: dict[str, frozenset[int]] = field(default_factory=dict)
    """Slots whose NUL is specified to answer one status (the cases the hardening named): slot name -> statuses."""

    @property
    def route(self) -> str:
        return f"{self.method} {API}{self.template}"

    def target(self, path: dict[str, str] | None = None, query: dict[str, str] | None = None) -> str:
        """The request target. The overrides (``path``, ``query``) come percent-encoded, as do the baseline's query
        values; the baseline's path values are encoded here."""
        encoded = {name: quote(value, safe="") for name, value in self.path.items()} | (path or {})
        result = API + self.template.format(**encoded)
        pairs = {**self.query, **(query or {})}
        if pairs:
            result += "?" + "&".join(f"{name}={value}" for name, value in pairs.items())
        return result


def _q(value: str) -> str:
    return quote(value, safe="")


def operations(t: Targets) -> list[Operation]:
    """Every documented operation, each with a baseline request that is valid."""
    session_scores_query = {
        "criteria_hash": "current",
        "min_score": "0",
        "max_score": "100",
        "band": "good",
        "status": "completed",
        "agent": "KubernetesAgent",
        "alert_type": "PodOOMKilled",
        "provider": "heuristic",
        "scored_after": _q("2026-01-01T00:00:00Z"),
        "scored_before": _q("2036-01-01T00:00:00Z"),
        "session_started_after": _q("2026-01-01T00:00:00Z"),
        "session_started_before": _q("2036-01-01T00:00:00Z"),
        "latest_only": "true",
        "missing_tool": "kubernetes-server.pods_exec",
        "sort": "total_score",
        "order": "desc",
        "limit": "10",
        "format": "json",
    }
    run_body = {
        "max_sessions": 1,
        "dry_run": True,
        "name": "fuzz run",
        "mode": "online",
        "max_cost_usd": 1.0,
        "selection": {
            "which": "all",
            "session_ids": [IN_PROGRESS_ID],
            "agent": "KubernetesAgent",
            "alert_type": "HighErrorRate",
            "statuses": ["completed"],
            "submitted_after": "2020-01-01T00:00:00Z",
            "submitted_before": "2036-01-01T00:00:00Z",
        },
    }
    return [
        Operation(
            "POST", "/sessions/{session_id}/score", {"session_id": t.write_session}, body={"force_rescore": False}
        ),
        Operation("GET", "/sessions/{session_id}/score", {"session_id": t.read_session}),
        Operation("GET", "/sessions/{session_id}/scores", {"session_id": t.read_session}),
        Operation(
            "GET",
            "/sessions",
            query={"page": "1", "page_size": "20", "status": "completed", "scored": "any", "sort": "source"},
        ),
        Operation(
            "GET", "/sessions", query={"band": "adequate", "criteria": "current", "sort": "score_desc", "page": "1"}
        ),
        Operation("GET", "/sessions/{session_id}", {"session_id": t.read_session}),
        Operation("GET", "/criteria/current"),
        Operation("GET", "/criteria/{criteria_hash}", {"criteria_hash": t.criteria_hash}),
        Operation(
            "GET", "/sessions/{session_id}/steps", {"session_id": t.read_session}, query={"offset": "0", "limit": "50"}
        ),
        Operation("GET", "/analytics/failure-tags", query={"criteria_hash": "current", "bucket": "week"}),
        Operation(
            "GET",
            "/analytics/failure-tags/{tag}/sessions",
            {"tag": "premature_conclusion"},
            query={"criteria_hash": "current", "page": "1", "page_size": "20"},
        ),
        Operation("GET", "/analytics/score-distribution", query={"criteria_hash": "current"}),
        Operation(
            "GET",
            "/analytics/missing-tools",
            query={"limit": "10", "bucket": "week", "periods": "12", "criteria_hash": "current"},
        ),
        Operation("GET", "/analytics/criteria"),
        Operation(
            "GET",
            "/analytics/trends",
            query={
                "bucket": "day",
                "group_by": "agent",
                "scored_after": _q("2026-01-01T00:00:00Z"),
                "scored_before": _q("2036-01-01T00:00:00Z"),
                "criteria_hash": "any",
            },
        ),
        Operation("GET", "/analytics/criteria-comparison", query={"base": t.criteria_hash, "candidate": "0" * 64}),
        Operation("POST", "/runs", body=run_body, named={"name": UNPROCESSABLE}),
        Operation("GET", "/runs", query={"page": "1", "page_size": "20"}),
        Operation("GET", "/runs/{run_id}", {"run_id": t.run_id}),
        Operation(
            "GET",
            "/runs/{run_id}/sessions",
            {"run_id": t.run_id},
            query={"page": "1", "page_size": "20", "status": "completed"},
        ),
        Operation("GET", "/runs/{run_id}/summary", {"run_id": t.run_id}),
        Operation("POST", "/runs/{run_id}/cancel", {"run_id": "00000000-0000-4000-8000-000000000000"}),
        Operation(
            "GET",
            "/scores",
            query=session_scores_query,
            named={"agent": UNPROCESSABLE, "alert_type": UNPROCESSABLE, "missing_tool": UNPROCESSABLE},
        ),
        Operation(
            "GET", "/exports/training", query={"min_score": "85", "criteria_hash": "current", "format": "normalized"}
        ),
        Operation(
            "POST", "/exports/training", body={"min_score": 90, "criteria_hash": "current", "format": "openai-chat"}
        ),
        Operation("GET", "/exports/{export_id}", {"export_id": "00000000-0000-4000-8000-000000000001"}),
        Operation(
            "GET",
            "/analytics/missing-tools/{tool_name}/sessions",
            {"tool_name": t.tool},
            query={"criteria_hash": "current", "limit": "50"},
            named={"tool_name": UNPROCESSABLE},
        ),
        Operation(
            "PUT",
            "/sessions/{session_id}/labels",
            {"session_id": t.write_session},
            body={"total_score": 70, "notes": "fuzz label"},
            named={"notes": UNPROCESSABLE},
        ),
        Operation("GET", "/sessions/{session_id}/labels", {"session_id": t.read_session}),
        Operation("GET", "/analytics/agreement", query={"criteria_hash": t.criteria_hash}),
    ]


# ---- one slot at a time --------------------------------------------------------------------------------------------


def _json_headers() -> dict[str, str]:
    return {"Content-Type": "application/json"}


def _body_bytes(document: Any) -> bytes:
    return json.dumps(document).encode()


def slot_requests(op: Operation) -> Iterator[Request]:
    """The operation's baseline with each path segment, query parameter and body field replaced by each hostile
    value in turn."""
    body = None if op.body is None else _body_bytes(op.body)
    headers = _json_headers() if op.body is not None else {}
    for where, names in (("path", op.path), ("query", op.query)):
        for name in names:
            for label, value in URL_VALUES:
                expect = op.named.get(name) if label in NUL_LABELS else None
                target = op.target(**{where: {name: encode(value)}})
                yield Request(f"{label} in {where} {name}", op.route, op.method, target, body, headers, expect)
    if op.query:
        yield Request("unknown query parameter", op.route, op.method, op.target(query={"fuzz": "1"}), body, headers)
        first = next(iter(op.query))
        yield Request(f"query {first} repeated", op.route, op.method, op.target() + f"&{first}=x", body, headers)
    if op.body is not None:
        yield from _body_slot_requests(op)


def _leaves(document: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    if isinstance(document, dict):
        for key, value in document.items():
            yield (*prefix, key)
            if isinstance(value, dict | list):
                yield from _leaves(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield (*prefix, index)
            if isinstance(value, dict | list):
                yield from _leaves(value, (*prefix, index))


def _replace(document: Any, where: tuple[str | int, ...], value: Any) -> Any:
    changed = copy.deepcopy(document)
    node = changed
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return changed


def _body_expectation(op: Operation, where: tuple[str | int, ...], label: str) -> frozenset[int] | None:
    name = str(where[-1])
    if label in NON_STANDARD_JSON:
        return REFUSED  # not JSON (RFC 8259 has no Infinity or NaN): a strict parser refuses the body
    if label in COERCIBLE_TO.get(FIELD_TYPES.get(name, ""), frozenset()):
        return UNPROCESSABLE  # a string or a number where the model wants another type: refused, never coerced
    if label.startswith("NUL"):
        return op.named.get(name)
    return None


def _body_slot_requests(op: Operation) -> Iterator[Request]:
    for where in _leaves(op.body):
        slot = ".".join(str(part) for part in where)
        for label, value in BODY_VALUES:
            document = _replace(op.body, where, value)
            yield Request(
                f"{label} in body {slot}",
                op.route,
                op.method,
                op.target(),
                _body_bytes(document),
                _json_headers(),
                _body_expectation(op, where, label),
            )
    yield Request(
        "unknown body field", op.route, op.method, op.target(), _body_bytes({**op.body, "fuzz": 1}), _json_headers()
    )
    for label, raw in (
        ("malformed JSON", b'{"a": 1,'),
        ("JSON array body", b"[]"),
        ("JSON null body", b"null"),
        ("JSON string body", b'"x"'),
        ("body with a BOM", b"\xef\xbb\xbf" + _body_bytes(op.body)),
        ("body not UTF-8", b'{"a": "\xff"}'),
        ("duplicate keys, last coercible", _body_bytes(op.body)[:-1] + b', "fuzz_dup": 1, "fuzz_dup": "1"}'),
    ):
        yield Request(label, op.route, op.method, op.target(), raw, _json_headers())
    yield Request(
        "JSON sent as text/plain",
        op.route,
        op.method,
        op.target(),
        _body_bytes(op.body),
        {"Content-Type": "text/plain"},
    )
    yield Request(
        "body past the 4 KiB limit",
        op.route,
        op.method,
        op.target(),
        _body_bytes({**op.body, "pad": "p" * 5_000}),
        _json_headers(),
        frozenset({413}),
    )


# ---- requests hostile as a whole -----------------------------------------------------------------------------------


def wrong_methods(document: dict[str, Any], t: Targets) -> Iterator[Request]:
    """Every path of the OpenAPI document with each method it does not serve: 405 naming the ones it does."""
    values = {
        "session_id": t.read_session,
        "run_id": t.run_id,
        "export_id": "00000000-0000-4000-8000-000000000001",
        "tool_name": t.tool,
        "criteria_hash": t.criteria_hash,
        "tag": "premature_conclusion",
    }
    for template, operations_ in document["paths"].items():
        allowed = tuple(sorted(method.upper() for method in operations_))
        target = template.format(**{name: quote(value, safe="") for name, value in values.items()})
        for method in METHODS:
            if method in allowed:
                continue
            body = b"{}" if method in ("POST", "PUT", "PATCH") else None
            yield Request(
                "wrong method",
                f"{method} {template}",
                method,
                target,
                body,
                _json_headers() if body else {},
                frozenset({405}),
                allow=allowed,
            )


ENCODED_SEGMENTS: tuple[tuple[str, str], ...] = (
    ("encoded slash", "a%2Fb"),
    ("encoded dot segments", "..%2F..%2Fcriteria%2Fcurrent"),
    ("dot dot", "%2e%2e"),
    ("double-encoded dot dot", "%252e%252e"),
    ("double-encoded NUL", "%2500"),
    ("NUL", "%00"),
    ("overlong UTF-8 dot dot", "%C0%AE%C0%AE"),
    ("invalid UTF-8", "%FF%FE"),
    ("UTF-8 surrogate", "%ED%A0%80"),
    ("encoded CRLF", "x%0D%0ASet-Cookie:%20a=b"),
    ("encoded space", "%20"),
    ("matrix parameter", "a;b=c"),
    ("encoded question mark", "a%3Fagent=x"),
    ("encoded hash", "a%23b"),
    ("overlong segment (5,000)", "s" * 5_000),
)
"""Path segments as sent (already percent-encoded)."""


def encoded_paths(t: Targets) -> Iterator[Request]:
    """Encoded, doubled and malformed path segments in each kind of path parameter, and odd spellings of a path."""
    templates = (
        ("GET", "/sessions/{}/score"),
        ("POST", "/sessions/{}/score"),
        ("GET", "/sessions/{}"),
        ("GET", "/sessions/{}/labels"),
        ("PUT", "/sessions/{}/labels"),
        ("GET", "/runs/{}"),
        ("POST", "/runs/{}/cancel"),
        ("GET", "/exports/{}"),
        ("GET", "/analytics/missing-tools/{}/sessions"),
    )
    for method, template in templates:
        route = f"{method} {API}{template.replace('{}', '{id}')}"
        for label, segment in ENCODED_SEGMENTS:
            body = _body_bytes({"total_score": 70}) if method == "PUT" else None
            expect = UNPROCESSABLE if (label == "NUL" and "missing-tools" in template) else None
            yield Request(
                f"{label} in the path",
                route,
                method,
                API + template.format(segment),
                body,
                _json_headers() if body else {},
                expect,
            )
    for label, path in (
        ("percent-encoded letter", "/%61pi/v1/scoring/scores"),
        ("dot segment", f"{API}/./scores"),
        ("dot dot segment", f"{API}/../scoring/scores"),
        ("double slash", f"/{API}/scores"),
        ("trailing slash", f"{API}/scores/"),
        ("upper case", "/API/v1/scoring/scores"),
        ("NUL in a static segment", f"{API}/sco%00res"),
        ("unknown API path", f"{API}/fuzz"),
        ("path past 8 KB", f"{API}/sessions/{'p' * 9_000}/score"),
    ):
        yield Request(label, f"GET {path[:60]}", "GET", path)


def protocol_requests() -> Iterator[Request]:
    """Malformed framing: a Content-Length that is not a number, or that lies."""
    route = f"POST {API}/runs"
    body = _body_bytes({"max_sessions": 1, "dry_run": True})
    for value in ("abc", "-1", "1.5", "0x10", "1e3"):
        yield Request(
            f"Content-Length: {value}",
            route,
            "POST",
            f"{API}/runs",
            body,
            {"Content-Type": "application/json", "Content-Length": value},
            frozenset({400}),
            protocol_level=True,
        )
    yield Request(
        "Content-Length past the limit",
        route,
        "POST",
        f"{API}/runs",
        body,
        {"Content-Type": "application/json", "Content-Length": "99999999999999999999"},
        frozenset({413}),
    )


def coercions(t: Targets) -> Iterator[Request]:
    """Strict JSON bodies: a value of another type is refused with 422, never coerced, and nothing is stored."""
    base = {"max_sessions": 1, "selection": {"which": "all", "session_ids": [IN_PROGRESS_ID]}}
    for label, change in (
        ('"dry_run": "yes"', {"dry_run": "yes"}),
        ('"dry_run": 1', {"dry_run": 1}),
        ('"dry_run": "true"', {"dry_run": "true"}),
        ('"max_sessions": "5"', {"max_sessions": "5"}),
        ('"max_sessions": 5.0', {"max_sessions": 5.0}),
        ('"max_sessions": true', {"max_sessions": True}),
    ):
        yield Request(
            label,
            f"POST {API}/runs",
            "POST",
            f"{API}/runs",
            _body_bytes({**base, **change}),
            _json_headers(),
            UNPROCESSABLE,
        )
    for label, value in (("1e30", 1e30), ("Infinity", float("inf")), ("NaN", float("nan"))):
        for dry_run in (True, False):
            yield Request(
                f"max_cost_usd {label}, dry_run {str(dry_run).lower()}",
                f"POST {API}/runs",
                "POST",
                f"{API}/runs",
                _body_bytes({**base, "max_cost_usd": value, "dry_run": dry_run}),
                _json_headers(),
                REFUSED if label != "1e30" else None,
            )
    score = f"{API}/sessions/{quote(t.write_session, safe='')}/score"
    for label, value in (("yes", "yes"), ("1", 1), ("true as string", "true")):
        yield Request(
            f'"force_rescore": {label}',
            f"POST {API}/sessions/{{session_id}}/score",
            "POST",
            score,
            _body_bytes({"force_rescore": value}),
            _json_headers(),
            UNPROCESSABLE,
        )


def unknown_sessions() -> Iterator[Request]:
    """Labels for a session that exists nowhere: 404, and no label stored."""
    for session_id in ("fuzz-nowhere-1", "00000000-0000-4000-8000-00000000dead", "upload:00000000-0000-4000-8000-0"):
        yield Request(
            "label for a session that exists nowhere",
            f"PUT {API}/sessions/{{session_id}}/labels",
            "PUT",
            f"{API}/sessions/{quote(session_id, safe='')}/labels",
            _body_bytes({"total_score": 40}),
            _json_headers(),
            NOT_FOUND,
        )


# ---- uploads -------------------------------------------------------------------------------------------------------


def sample_document(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    document.update({"alert_type": "FuzzTarget", **changes})
    return document


def nested(depth: int) -> Any:
    """A JSON value ``depth`` lists deep."""
    return json.loads("[" * depth + "]" * depth)


def nested_text(depth: int) -> bytes:
    return b'{"format": "session-scoring/v1", "alert": ' + b"[" * depth + b"]" * depth + b"}"


def import_requests() -> Iterator[Request]:
    """Uploads: deep nesting (inside a valid session and as the whole document), NUL and lone surrogates inside the
    session's strings, and documents that are not sessions."""
    route = f"POST {API}/sessions:import"
    target = f"{API}/sessions:import?file_name=fuzz.json"
    for depth in (300, 500, 900):
        yield Request(
            f"session nested {depth} deep",
            route,
            "POST",
            target,
            _body_bytes(sample_document(alert={"nested": nested(depth - 2)})),
            _json_headers(),
        )
        yield Request(
            f"document nested {depth} deep", route, "POST", target, nested_text(depth), _json_headers(), REFUSED
        )
    for label, raw in (
        ("session nested 100,000 deep", nested_text(100_000)),
        ("array nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000),
        ("object nested 100,000 deep", b'{"a":' * 100_000 + b"1" + b"}" * 100_000),
    ):
        yield Request(label, route, "POST", target, raw, _json_headers(), frozenset({400, 413, 422}))
    for label, value in (
        ("NUL", "a\x00b"),
        ("lone surrogate", "\ud800"),
        ("NUL alone", "\x00"),
        ("overlong (100,000)", "o" * 100_000),
    ):
        for slot in ("alert_type", "agent_type", "final_analysis"):
            expect = REFUSED if label.startswith(("NUL", "lone")) else None
            yield Request(
                f"{label} in the imported session's {slot}",
                route,
                "POST",
                target,
                _body_bytes(sample_document(**{slot: value})),
                _json_headers(),
                expect,
            )
        yield Request(
            f"{label} in the imported session's alert",
            route,
            "POST",
            target,
            _body_bytes(sample_document(alert={value: value})),
            _json_headers(),
            REFUSED if label.startswith(("NUL", "lone")) else None,
        )
    for label, raw, headers in (
        ("not UTF-8", b"\xff\xfe\x00{", _json_headers()),
        ("empty body", b"", _json_headers()),
        ("JSON Lines with a broken line", b'{"type": "x"}\n{broken\n', {"Content-Type": "application/x-ndjson"}),
        ("huge number", b'{"format": "session-scoring/v1", "stages": [], "n": 1e400}', _json_headers()),
        ("non-standard JSON token", b'{"format": "session-scoring/v1", "stages": [], "n": NaN}', _json_headers()),
    ):
        yield Request(label, route, "POST", target, raw, headers, REFUSED)
    for label, name in (("NUL", "a%00b"), ("path in the name", "..%2F..%2Fetc%2Fpasswd"), ("overlong", "n" * 300)):
        yield Request(
            f"{label} in query file_name",
            route,
            "POST",
            f"{API}/sessions:import?file_name={name}",
            _body_bytes(sample_document()),
            _json_headers(),
            UNPROCESSABLE,
        )


def csv_hostile_documents() -> list[dict[str, Any]]:
    """Sessions whose agent and alert type are spreadsheet formulas: once scored, the CSV export must defuse them."""
    formulas = ('=HYPERLINK("http://127.0.0.1/x","y")', "+1+1", "-2+3", "@SUM(A1:A2)", "\t=1+1")
    return [
        sample_document(agent_type=formula, alert_type=formula, session_id=f"fuzz-csv-{index}")
        for index, formula in enumerate(formulas)
    ]


# ---- issue 39's findings: the local server's guard, identities, session ids, internals ------------------------------

INTERNALS = ("127.0.0.1", "http://", "Error:", "pg8000", "OperationalError", "InterfaceError")


def guard_requests(t: Targets) -> Iterator[Request]:
    """A foreign Host (421), a write from a foreign Origin (403), a body that is not JSON (415), a run naming a session
    id with a final newline or a hidden space (422), identity headers with hidden whitespace (the campaign's stack
    trusts no proxy: never a 5xx), and 404s that must name no internal address."""
    sessions = f"{API}/sessions"
    for host in ("evil.example", "127.0.0.1.evil.example:8000", "attacker", "localhost.evil.example"):
        yield Request(
            f"foreign Host {host}", f"GET {sessions}", "GET", sessions, None, {"Host": host}, frozenset({421})
        )
    route = f"POST {API}/sessions:import"
    target = f"{API}/sessions:import?file_name=fuzz.json"
    upload = _body_bytes(sample_document())
    for origin in ("https://evil.example", "null", "http://127.0.0.1.evil.example"):
        headers = {"Content-Type": "application/json", "Origin": origin}
        yield Request(f"upload from Origin {origin}", route, "POST", target, upload, headers, frozenset({403}))
    yield Request(
        "upload with Sec-Fetch-Site cross-site",
        route,
        "POST",
        target,
        upload,
        {"Sec-Fetch-Site": "cross-site"},
        frozenset({403}),
    )
    dry_run = _body_bytes({"max_sessions": 1, "dry_run": True})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        headers = {"Content-Type": content_type}
        yield Request(f"upload as {content_type}", route, "POST", target, upload, headers, frozenset({415}))
        yield Request(
            f"run as {content_type}", f"POST {API}/runs", "POST", f"{API}/runs", dry_run, headers, frozenset({415})
        )
    yield Request(
        "run without a Content-Type", f"POST {API}/runs", "POST", f"{API}/runs", dry_run, {}, frozenset({415})
    )
    for session_id in ("abc\n", "abc\r", "abc\r\n", "abc\u00a0", "\nabc"):
        yield Request(
            f"run selecting the session id {session_id!r}",
            f"POST {API}/runs",
            "POST",
            f"{API}/runs",
            _body_bytes({"max_sessions": 1, "dry_run": True, "selection": {"session_ids": [session_id]}}),
            _json_headers(),
            UNPROCESSABLE,
        )
    for hidden in ("\xa0", "\x85", "\x1f"):
        for header in ("X-Forwarded-User", "X-Forwarded-Groups"):
            yield Request(
                f"{header} with {hidden!r}",
                f"GET {API}/me",
                "GET",
                f"{API}/me",
                None,
                {header: f"admin{hidden}", "X-Forwarded-User": "mallory"}
                if header != "X-Forwarded-User"
                else {header: f"alice{hidden}"},
            )
    for session_id in ("fuzz-nowhere-1", "upload:00000000-0000-4000-8000-00000000dead"):
        path = f"{API}/sessions/{quote(session_id, safe='')}"
        yield Request(
            "unknown session names no internals",
            f"GET {API}/sessions/{{session_id}}",
            "GET",
            path,
            expect=NOT_FOUND,
            withheld=INTERNALS,
        )
        yield Request(
            "unknown session's steps name no internals",
            f"GET {API}/sessions/{{session_id}}/steps",
            "GET",
            f"{path}/steps",
            expect=NOT_FOUND,
            withheld=INTERNALS,
        )


def named_cases(document: dict[str, Any], t: Targets) -> list[Request]:
    """The cases the campaign must always reach, even a short one: sent first, in this order."""
    return [
        *coercions(t),
        *unknown_sessions(),
        *protocol_requests(),
        *wrong_methods(document, t),
        *import_requests(),
        *encoded_paths(t),
        *guard_requests(t),
    ]


def slot_cases(t: Targets) -> list[Request]:
    return [request for op in operations(t) for request in slot_requests(op)]
