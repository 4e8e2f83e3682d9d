"""The reference root cause a document carries at its top level, whatever its format: read into the session,
checked, and refused naming the field when it has the wrong shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from session_scoring.errors import SessionDataError
from session_scoring.sources.documents import parse_trace, parse_traces
from session_scoring.sources.formats import TraceDocument
from tests.conftest import SAMPLES, THOROUGH_ID
from tests.support.labelled_traces import TRACES

FACTS = TRACES / "facts"
CAUSE = "the JVM heap equals the container limit"
REMEDY = "lower -Xmx to 75% of the limit"


def _documents() -> list[tuple[str, dict[str, Any]]]:
    messages = json.loads((TRACES / "openai_chat_crashloop.json").read_text())
    return [
        ("openai-chat", {"messages": messages}),
        ("anthropic-messages", json.loads((TRACES / "anthropic_checkout_latency.json").read_text())),
        ("openai-responses", json.loads((TRACES / "openai_responses_disk.json").read_text())),
        ("otel-genai", json.loads((TRACES / "otel_genai_oom.json").read_text())),
        ("session-scoring/v1", json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())),
    ]


@pytest.mark.parametrize(("name", "document"), _documents(), ids=[name for name, _ in _documents()])
def test_every_object_document_carries_its_reference_into_the_session(name: str, document: dict[str, Any]) -> None:
    bare = parse_trace(TraceDocument(document, "doc.json"))[1]
    assert bare.reference_root_cause is None

    carried = {**document, "reference_root_cause": CAUSE, "reference_remediation": REMEDY}
    session = parse_trace(TraceDocument(carried, "doc.json"))[1]

    assert (session.reference_root_cause, session.reference_remediation) == (CAUSE, REMEDY)


def test_each_trajectory_of_a_results_file_carries_its_own() -> None:
    records = json.loads((FACTS / "benchmark_results.json").read_text())
    records[0]["reference_root_cause"] = "the reservation was already cancelled"

    sessions = parse_traces(TraceDocument(records, "results.json"))

    assert [s.reference_root_cause for _, s in sessions] == ["the reservation was already cancelled", None, None]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"reference_root_cause": ["a", "list"]}, "invalid reference fields: field 'reference_root_cause'"),
        ({"reference_root_cause": "x" * 1001}, "at most 1000 characters"),
        ({"reference_remediation": "restart it"}, "reference_remediation is given without reference_root_cause"),
    ],
)
def test_a_reference_of_the_wrong_shape_is_refused_naming_it(fields: dict[str, Any], message: str) -> None:
    messages = json.loads((TRACES / "openai_chat_crashloop.json").read_text())

    with pytest.raises(SessionDataError, match=message):
        parse_trace(TraceDocument({"messages": messages, **fields}, "doc.json"))
