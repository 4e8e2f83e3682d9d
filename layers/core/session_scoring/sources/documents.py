"""Turn a session document (parsed JSON or JSON Lines) into the normalised :class:`Session`, whatever shape it has.

Recognised shapes, tried in this order:
- ``session-scoring/v1``: the service's own normalised format;
- tarsy-bot's ``DetailedSession`` (``GET /api/v1/history/sessions/{id}``), see :mod:`sources.tarsy`;
- tarsy-bot's final-analysis response (``.../final-analysis?include_conversation=true``), see
  :mod:`sources.tarsy_final_analysis`;
- other agents' trace formats, chosen by shape from the registry in :mod:`sources.formats` (OpenTelemetry GenAI,
  Codex and Claude Code session logs, OpenAI Responses items, Anthropic messages, OpenAI chat messages).
"""

from __future__ import annotations

from typing import Any

from session_scoring.errors import SessionDataError
from session_scoring.models.session import SESSION_FORMAT, Session
from session_scoring.sources.boundary import validate_document
from session_scoring.sources.formats import TraceDocument, detect_format, expected_formats
from session_scoring.sources.tarsy import is_detailed_session, parse_detailed_session
from session_scoring.sources.tarsy_final_analysis import is_final_analysis_response, parse_final_analysis_response

__all__ = ["parse_session_document", "parse_trace"]

TARSY_DETAILED = "tarsy-detailed-session"
TARSY_FINAL_ANALYSIS = "tarsy-final-analysis"


def parse_trace(document: TraceDocument, include_chat: bool = False) -> tuple[str, Session]:
    """The name of the document's format and the session it holds; SessionDataError naming the origin otherwise."""
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
    if trace_format is not None:
        try:
            return trace_format.name, trace_format.parse(document)
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # A field of an unexpected type deep in an otherwise recognised document: say so instead of a 500.
            raise SessionDataError(
                f"{origin}: looks like {trace_format.description} but a field has an unexpected type "
                f"({type(exc).__name__}: {str(exc)[:200]}); see docs/trace-formats.md"
            ) from exc
    got = (
        f"a JSON {type(content).__name__}"
        if not isinstance(content, dict)
        else "an object with keys " + ", ".join(sorted(map(str, content))[:8])
    )
    raise SessionDataError(
        f'{origin}: unrecognised session document ({got}); expected \'"format": "{SESSION_FORMAT}"\', a TARSy '
        f"DetailedSession or final-analysis response, or one of: {expected_formats()} (see docs/trace-formats.md)"
    )


def parse_session_document(document: Any, origin: str, include_chat: bool = False) -> Session:
    """Normalise one parsed JSON document; ``origin`` (a file name or URL) is named in errors and is the id of last
    resort."""
    return parse_trace(TraceDocument(document, origin), include_chat)[1]
