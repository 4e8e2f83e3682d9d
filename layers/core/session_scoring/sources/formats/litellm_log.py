"""LiteLLM proxy request logs (also OpenHands' ``log_completions`` files): ``messages`` (the request), ``response``
(``choices[0].message`` is the turn that answered it) and, when the agent has no native function calling, the
structured copy of the request in ``raw_messages``. Without it the calls are text: ``<function=name>``
``<parameter=key>...`` tags in assistant turns, answered by user turns ``EXECUTION RESULT of [name]:``
(``text_protocol``). Message content may be saved as the text of a Python list of parts; it is read as those parts.
"""

from __future__ import annotations

import ast
from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats import openai_chat
from session_scoring.sources.formats.common import TraceBuilder, TraceDocument, build_session, tools_of

NAME = "litellm-proxy-log"
_RESPONSE = "response.choices"


def detect(content: Any) -> bool:
    """``messages`` and a ``response`` with ``choices``."""
    if not isinstance(content, dict) or not isinstance(content.get("messages"), list):
        return False
    response = content.get("response")
    return isinstance(response, dict) and isinstance(response.get("choices"), list)


def _parts(content: Any) -> Any:
    """Content saved as the repr of a list of parts (``"[{'type': 'text', ...}]"``) as that list."""
    if isinstance(content, str) and content.startswith("[") and ("{'type'" in content[:20] or content == "[]"):
        try:
            value = ast.literal_eval(content)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return content
        return value if isinstance(value, list) else content
    return content


def _fill(messages: list[Any], builder: TraceBuilder, document: TraceDocument) -> None:
    for raw in messages:
        if not isinstance(raw, dict):
            continue
        message = {**raw, "content": _parts(raw.get("content"))}
        role = message.get("role")
        text = openai_chat.text_of(message["content"], builder)
        if role == "assistant" and not message.get("tool_calls") and "<function=" in text:
            builder.text_turn(text)
        elif role == "user" and text.lstrip().startswith("EXECUTION RESULT of ["):
            builder.text_result(text)
        else:
            openai_chat.fill([message], builder, document)


def parse(document: TraceDocument) -> Session:
    content = document.content
    raw = content.get("raw_messages")
    messages = raw if isinstance(raw, list) and raw else content["messages"]
    builder = TraceBuilder()
    _fill(messages, builder, document)
    beside: tuple[str, str] | None = None
    choices = content["response"]["choices"]
    answered = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    if isinstance(answered, dict):
        text = openai_chat.text_of(_parts(answered.get("content")), builder)
        if answered.get("tool_calls") or "<function=" in text:
            # The answering turn acts (a finish call is the agent's submit): read it as one more turn.
            _fill([answered], builder, document)
        else:
            beside = (text, _RESPONSE) if text.strip() else None
    return build_session(document, builder, tools=tools_of(content.get("tools")), beside=beside)
