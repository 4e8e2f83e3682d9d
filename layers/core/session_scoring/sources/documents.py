"""Turn a session document (parsed JSON or JSON Lines) into the normalised :class:`Session`, whatever shape it has.

Shapes are tried in this order: ``session-scoring/v1`` (the service's own), tarsy-bot's ``DetailedSession``
(:mod:`sources.tarsy`) and final-analysis response (:mod:`sources.tarsy_final_analysis`), then other agents' trace
formats (:mod:`sources.formats`). Any JSON object may carry the session's known root cause at its top level
(``reference_root_cause``, ``reference_remediation``).

A document may hold many trajectories (a benchmark's results: records each with its own message list):
:func:`parse_traces` reads each record as its own session; :func:`parse_trace`, which reads one session, refuses such
a document and says how to import it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import Field

from session_scoring.errors import SessionDataError
from session_scoring.models.reference import MAX_REFERENCE_CHARS
from session_scoring.models.session import SESSION_FORMAT, Session
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.formats import (
    MAX_DEPTH,
    TraceDocument,
    TraceFormat,
    detect_format,
    expected_formats,
    generic,
)
from session_scoring.sources.tarsy import is_detailed_session, parse_detailed_session
from session_scoring.sources.tarsy_final_analysis import is_final_analysis_response, parse_final_analysis_response

__all__ = [
    "MAX_TRAJECTORIES",
    "Read",
    "parse_session_document",
    "parse_trace",
    "parse_traces",
    "read_traces",
    "trajectories_of",
]

TARSY_DETAILED = "tarsy-detailed-session"
TARSY_FINAL_ANALYSIS = "tarsy-final-analysis"

MAX_TRAJECTORIES = 500
"""The most trajectories one document may hold (each becomes a session)."""
_TRAJECTORY_KEYS = ("messages", "traj", "trajectory", "conversation", "history", "chat_history")
_RECORD_LISTS = ("results", "trajectories", "records", "sessions", "samples")
"""Keys of a document's list of trajectories (an Inspect AI eval log's ``samples``: one session per sample)."""
_RECORD_IDS = ("session_id", "id", "task_id", "instance_id", "trajectory_id", "run_id")


@dataclass(frozen=True)
class Read:
    """One session read from a document: the reader (format) that read it and, when the generic fallback found
    the conversation, where it was (a JSON path); ``location`` is None when a reader claimed the document."""

    trace_format: str
    session: Session
    location: str | None = None


class _ReferenceFields(BoundaryModel):
    """The known root cause a document may carry at its top level, whatever its format."""

    reference_root_cause: str | None = Field(default=None, max_length=MAX_REFERENCE_CHARS)
    reference_remediation: str | None = Field(default=None, max_length=MAX_REFERENCE_CHARS)


def _with_reference(session: Session, content: Any, origin: str) -> Session:
    """``session`` with the reference fields of the document's top level (a ``session-scoring/v1`` document has
    read them already)."""
    if not isinstance(content, dict) or session.reference_root_cause is not None:
        return session
    if "reference_root_cause" not in content and "reference_remediation" not in content:
        return session
    fields = validate_document(_ReferenceFields, content, f"{origin}: invalid reference fields")
    if fields.reference_root_cause is None and fields.reference_remediation is not None:
        raise SessionDataError(
            f"{origin}: reference_remediation is given without reference_root_cause; give the root cause too, or "
            "leave both out"
        )
    return session.model_copy(
        update={
            "reference_root_cause": fields.reference_root_cause,
            "reference_remediation": fields.reference_remediation,
        }
    )


def _single(document: TraceDocument, include_chat: bool) -> tuple[str, Session] | None:
    """The document read as one session in the first shape that recognises it, with the reference fields of its top
    level; None when none does."""
    found = _recognised(document, include_chat)
    return None if found is None else (found[0], _with_reference(found[1], document.content, document.origin))


def _recognised(document: TraceDocument, include_chat: bool) -> tuple[str, Session] | None:
    content, origin = document.content, document.origin
    if isinstance(content, dict):
        if content.get("format") == SESSION_FORMAT or ("stages" in content and "format" in content):
            return SESSION_FORMAT, validate_document(
                Session, content, f"{origin}: not a valid {SESSION_FORMAT} session"
            )
        if is_detailed_session(content):
            return TARSY_DETAILED, parse_detailed_session(content, origin, include_chat)
        if is_final_analysis_response(content):
            return TARSY_FINAL_ANALYSIS, parse_final_analysis_response(content, origin, include_chat)
    trace_format = detect_format(content)
    return None if trace_format is None else (trace_format.name, _parse_as(trace_format, document))


def _parse_as(trace_format: TraceFormat, document: TraceDocument) -> Session:
    try:
        return trace_format.parse(document)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        # A field of an unexpected type deep in an otherwise recognised document: say so instead of a 500.
        raise SessionDataError(
            f"{document.origin}: looks like {trace_format.description} but a field has an unexpected type "
            f"({type(exc).__name__}: {str(exc)[:200]}); see docs/trace-formats.md"
        ) from exc


def _as_trajectory(record: dict[str, Any], document: TraceDocument, index: int) -> TraceDocument | None:
    """One record of a many-trajectory document as a document of its own; None when it holds no trajectory."""
    content: dict[str, Any]
    if detect_format(record) is not None:
        content = dict(record)
    else:
        key = next((k for k in _TRAJECTORY_KEYS if isinstance(record.get(k), list) and record[k]), None)
        if key is None:
            return None
        content = {**{k: v for k, v in record.items() if k != key}, "messages": record[key]}
    # A benchmark's record names its task by a number or under its own key; the session id is text.
    identifier = next((content[k] for k in _RECORD_IDS if isinstance(content.get(k), (str, int))), None)
    for name in _RECORD_IDS:
        content.pop(name, None)
    if identifier is not None:
        content["session_id"] = str(identifier)
    if not isinstance(content.get("status"), str):
        content.pop("status", None)
    origin = f"{document.origin}: {document.where(index, 'record')}"
    return TraceDocument(content, origin, submit_tools=document.submit_tools)


def _one_stream(records: list[dict[str, Any]]) -> bool:
    """Lines of one conversation (a LangGraph agent's JSON Lines log), not records of many trajectories: no line
    names a task, and each line carries only the message or two it added, or lines repeat the conversation so far
    (the agent's state, streamed), or the lines are a typed event log some of whose lines hold no messages (a
    metadata header and stage markers, as Stratus writes them)."""
    if any(isinstance(record.get(key), (str, int)) for record in records for key in _RECORD_IDS):
        return False
    lists = [value for record in records for key in _TRAJECTORY_KEYS if isinstance(value := record.get(key), list)]
    if len(records) < 2 or not lists:
        return False
    return max(len(value) for value in lists) <= 2 or generic.one_conversation(records)


def trajectories_of(document: TraceDocument) -> list[TraceDocument] | None:
    """The trajectories of a document holding many (each record with its own message list), or None when it is not
    such a document. A record holding no trajectory is refused, naming it."""
    content = document.content
    records: Any = content
    if isinstance(content, dict):
        records = next((content[k] for k in _RECORD_LISTS if isinstance(content.get(k), list)), None)
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) for r in records):
        return None
    if _one_stream(records):
        return None
    found = [_as_trajectory(record, document, index) for index, record in enumerate(records)]
    if not any(found):
        return None
    missing = next((index for index, item in enumerate(found) if item is None), None)
    if missing is not None:
        raise SessionDataError(
            f"{document.origin}: {document.where(missing, 'record')}: expected a trajectory like the other records "
            f"(a message list under one of {', '.join(_TRAJECTORY_KEYS)})"
        )
    if len(found) > MAX_TRAJECTORIES:
        raise SessionDataError(
            f"{document.origin}: holds {len(found)} trajectories; one upload may hold at most {MAX_TRAJECTORIES}. "
            "Split the file and upload each part"
        )
    return [item for item in found if item is not None]


def _generic(document: TraceDocument) -> Read | None:
    """The document read by the generic fallback, when it holds a conversation anywhere."""
    found, _ = generic.find_conversation(document.content, MAX_DEPTH)
    if found is None:
        return None
    try:
        session = generic.parse(document, found)
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise SessionDataError(
            f"{document.origin}: no reader claims the document; the conversation found at {found.location} could "
            f"not be read ({type(exc).__name__}: {str(exc)[:200]}); see docs/trace-formats.md"
        ) from exc
    return Read(generic.NAME, _with_reference(session, document.content, document.origin), found.location)


def _unrecognised(document: TraceDocument) -> SessionDataError:
    content = document.content
    _, nearest = generic.find_conversation(content, MAX_DEPTH)
    got = (
        f"a JSON {type(content).__name__}"
        if not isinstance(content, dict)
        else "an object with keys " + ", ".join(sorted(map(str, content))[:8])
    )
    return SessionDataError(
        f'{document.origin}: unrecognised session document ({got}); expected \'"format": "{SESSION_FORMAT}"\', a TARSy '
        f"DetailedSession or final-analysis response, or one of: {expected_formats()}; nor does it hold a "
        f"conversation anywhere: looked for {generic.LOOKED_FOR} within {MAX_DEPTH} levels, the nearest thing found "
        f"was {nearest or 'no array of objects at all'} (see docs/trace-formats.md)"
    )


def parse_trace(document: TraceDocument, include_chat: bool = False) -> tuple[str, Session]:
    """The name of the document's format and the one session it holds; SessionDataError naming the origin
    otherwise (a document holding many trajectories included: it says how to import them)."""
    single = _single(document, include_chat)
    if single is not None:
        return single
    trajectories = trajectories_of(document)
    if trajectories is not None:
        raise SessionDataError(
            f"{document.origin}: holds {len(trajectories)} trajectories (records with their own message lists), not "
            "one session; upload it with POST /api/v1/scoring/sessions:import, which stores each trajectory as its "
            "own session, or split it into one file per trajectory"
        )
    read = _generic(document)
    if read is not None:
        return read.trace_format, read.session
    raise _unrecognised(document)


def parse_traces(document: TraceDocument, include_chat: bool = False) -> list[tuple[str, Session]]:
    """Every session the document holds: the one session, or each trajectory of a many-trajectory document."""
    return [(read.trace_format, read.session) for read in read_traces(document, include_chat)]


def read_traces(document: TraceDocument, include_chat: bool = False) -> list[Read]:
    """Every session the document holds, with the reader that read it: the one session, each trajectory of a
    many-trajectory document, or the conversation the generic fallback found; SessionDataError saying what was
    looked for and the nearest thing found when there is none."""
    single = _single(document, include_chat)
    if single is not None:
        return [Read(*single)]
    trajectories = trajectories_of(document)
    if trajectories is None:
        read = _generic(document)
        if read is None:
            raise _unrecognised(document)
        return [read]
    sessions: list[Read] = []
    for trajectory in trajectories:
        single = _single(trajectory, include_chat)
        if single is not None:
            sessions.append(Read(*single))
            continue
        read = _generic(trajectory)
        if read is None:
            raise _unrecognised(trajectory)
        sessions.append(read)
    return sessions


def parse_session_document(document: Any, origin: str, include_chat: bool = False) -> Session:
    """Normalise one parsed JSON document; ``origin`` (a file name or URL) is named in errors and is the id of last
    resort."""
    return parse_trace(TraceDocument(document, origin), include_chat)[1]
