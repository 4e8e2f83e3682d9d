"""Integration fixtures: the service's JSON log lines; a fake TARSy over real HTTP and stacks reading from it."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.fake_tarsy import FakeTarsy


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    """What the service logs, as its formatter writes it (the JSON lines Lambda would ship to CloudWatch)."""
    from session_scoring.log import logger

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logger.registered_formatter)
    logger.addHandler(handler)
    yield stream
    logger.removeHandler(handler)


@pytest.fixture
def fake_tarsy(loopback: Callable[[type[FakeTarsy]], FakeTarsy]) -> FakeTarsy:
    return loopback(FakeTarsy)


@pytest.fixture
def tarsy_env(fake_tarsy: FakeTarsy) -> dict[str, str]:
    """Settings of a stack whose sessions come from the fake tarsy-bot: short timeouts, no retry delay."""
    return {
        "SCORING_SESSION_SOURCE": "tarsy",
        "SCORING_TARSY_URL": fake_tarsy.base_url,
        "SCORING_TARSY_TOKEN": "tarsy-test-token",
        "SCORING_TARSY_READ_TIMEOUT_SECONDS": "1",
        "SCORING_TARSY_MAX_RETRIES": "1",
        "SCORING_SOURCE_RETRY_BASE_SECONDS": "0",
    }


@pytest.fixture
def tarsy_stack(make_stack: Any, tarsy_env: dict[str, str]) -> Any:
    """The local stack (heuristic judge) reading sessions from the fake TARSy."""
    return make_stack(**tarsy_env)


@pytest.fixture
def tarsy_claude_stack(make_stack: Any, tarsy_env: dict[str, str], fake_claude: Any) -> Any:
    """The local stack with the Claude judge (real SDK -> fake Messages API) reading from the fake TARSy."""
    return make_stack(
        **tarsy_env,
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
    )
