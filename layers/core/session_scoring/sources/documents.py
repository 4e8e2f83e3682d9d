"""Turn a session document (parsed JSON) into the normalised :class:`Session`, whatever shape it has.

Recognised shapes, tried in this order:
- ``session-scoring/v1``: the service's own normalised format;
- tarsy-bot's ``DetailedSession`` (``GET /api/v1/history/sessions/{id}``), see :mod:`sources.tarsy`;
- tarsy-bot's final-analysis response (``.../final-analysis?include_conversation=true``), see
  :mod:`sources.tarsy_final_analysis`;
- a generic OpenAI-style chat transcript (``messages`` with ``tool_calls``), see :mod:`sources.chat_transcript`.
"""

from __future__ import annotations

from typing import Any

from session_scoring.errors import SessionDataError
from session_scoring.models.session import SESSION_FORMAT, Session
from session_scoring.sources.boundary import validate_document
from session_scoring.sources.chat_transcript import is_chat_transcript, parse_chat_transcript
from session_scoring.sources.tarsy import is_detailed_session, parse_detailed_session
from session_scoring.sources.tarsy_final_analysis import is_final_analysis_response, parse_final_analysis_response

__all__ = ["parse_session_document"]


def parse_session_document(document: Any, origin: str, include_chat: bool = False) -> Session:
    """Normalise one document; ``origin`` (a file name or URL) is named in errors and is the id of last resort."""
    if not isinstance(document, dict):
        raise SessionDataError(f"{origin}: expected a JSON object, got {type(document).__name__}")
    if document.get("format") == SESSION_FORMAT or ("stages" in document and "format" in document):
        return validate_document(Session, document, f"{origin}: not a valid {SESSION_FORMAT} session")
    if is_detailed_session(document):
        return parse_detailed_session(document, origin, include_chat)
    if is_final_analysis_response(document):
        return parse_final_analysis_response(document, origin, include_chat)
    if is_chat_transcript(document):
        return parse_chat_transcript(document, origin, default_id=origin.removesuffix(".json"))
    raise SessionDataError(
        f'{origin}: unrecognised session document; expected \'"format": "{SESSION_FORMAT}"\', a TARSy '
        "DetailedSession or final-analysis response, or a chat transcript with 'messages'"
    )
