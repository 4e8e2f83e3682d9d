"""Structured JSON logging (Powertools Logger) shared by every module.

Score and session ids are appended as correlation keys by the edges; long texts (prompts, judge responses) go
through :func:`truncate` so logs never hold a whole session or verdict. Every line is masked as it is formatted
(the built-in groups of :mod:`session_scoring.masking`): a secret in session text that lands in a message, an extra
or a traceback is logged as its marker.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

from session_scoring.masking import default_masker


class MaskingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON formatter, the log record masked before it is serialised."""

    def serialize(self, log: Any) -> str:
        return super().serialize(default_masker().mask_value(log))


logger = Logger(service="session-scoring", logger_formatter=MaskingFormatter())

LOG_TEXT_LIMIT = 2000


def truncate(text: str, limit: int = LOG_TEXT_LIMIT) -> str:
    """The head of ``text`` with a note of how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [truncated {len(text) - limit} of {len(text)} chars]"
