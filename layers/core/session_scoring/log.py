"""Structured JSON logging (Powertools Logger) shared by every module.

Score and session ids are appended as correlation keys by the edges; long texts (prompts, judge responses) go
through :func:`truncate` so logs never hold a whole session or verdict.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger

logger = Logger(service="session-scoring")

LOG_TEXT_LIMIT = 2000


def truncate(text: str, limit: int = LOG_TEXT_LIMIT) -> str:
    """The head of ``text`` with a note of how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [truncated {len(text) - limit} of {len(text)} chars]"
