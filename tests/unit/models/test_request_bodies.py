"""Every request body: strict JSON types, no unknown field, no NUL character or lone surrogate anywhere, numbers within
their columns."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from session_scoring.models.api import ScoreRequest, TrainingExportJobRequest
from session_scoring.models.quality import LabelRequest
from session_scoring.models.request import RequestBody
from session_scoring.models.runs import MAX_COST_USD, RunRequest, RunSelection, Which
from session_scoring.models.text import NUL_ERROR_TYPE, SURROGATE_ERROR_TYPE, unstorable_locations

REQUEST_BODIES = [ScoreRequest, TrainingExportJobRequest, LabelRequest, RunRequest, RunSelection]


def _problems(model: type[BaseModel], data: Any) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    return [(tuple(err["loc"]), err["type"]) for err in caught.value.errors()]


@pytest.mark.parametrize("model", REQUEST_BODIES)
def test_every_request_body_shares_the_strict_base(model: type[BaseModel]) -> None:
    assert issubclass(model, RequestBody)
    assert model.model_config.get("strict") is True
    assert model.model_config.get("extra") == "forbid"


@pytest.mark.parametrize(
    ("model", "data", "loc"),
    [
        (LabelRequest, {"total_score": 60, "notes": "a\x00b"}, ("notes",)),
        (RunRequest, {"max_sessions": 1, "name": "\x00"}, ("name",)),
        (
            RunRequest,
            {"max_sessions": 1, "selection": {"session_ids": ["a", "b\x00"]}},
            ("selection", "session_ids", 1),
        ),
        (RunRequest, {"max_sessions": 1, "selection": {"agent\x00": "x"}}, ("selection", "agent\x00")),
        (TrainingExportJobRequest, {"format": "normalized\x00"}, ("format",)),
    ],
)
def test_a_nul_anywhere_is_refused_at_its_location(model: type[BaseModel], data: Any, loc: tuple[Any, ...]) -> None:
    assert _problems(model, data) == [(loc, NUL_ERROR_TYPE)]


def test_every_nul_is_reported_not_only_the_first() -> None:
    locations = [loc for loc, _, _ in unstorable_locations({"a": "\x00", "b": [{"c": "x\x00"}, "ok"], "d": 1})]

    assert locations == [("a",), ("b", 0, "c")]


@pytest.mark.parametrize(
    ("model", "data", "loc"),
    [
        (RunRequest, {"max_sessions": 1, "selection": {"statuses": ["\ud800"]}}, ("selection", "statuses", 0)),
        (LabelRequest, {"total_score": 60, "notes": "ok \udfff"}, ("notes",)),
    ],
)
def test_a_lone_surrogate_anywhere_is_refused_at_its_location(
    model: type[BaseModel], data: Any, loc: tuple[Any, ...]
) -> None:
    """JSON's ``"\\ud800"`` escape decodes to a lone surrogate, which has no UTF-8 form: it would fail the statement."""
    assert _problems(model, data) == [(loc, SURROGATE_ERROR_TYPE)]


def test_paired_surrogates_are_ordinary_text() -> None:
    """``"\\ud83d\\ude00"`` in JSON is one character (U+1F600), which PostgreSQL stores."""
    assert list(unstorable_locations({"notes": "\U0001f600 fine"})) == []


@pytest.mark.parametrize(
    ("data", "loc"),
    [
        ({"max_sessions": 1, "dry_run": "no"}, ("dry_run",)),
        ({"max_sessions": 1, "dry_run": 0}, ("dry_run",)),
        ({"max_sessions": "5"}, ("max_sessions",)),
        ({"max_sessions": True}, ("max_sessions",)),
        ({"max_sessions": 1, "max_cost_usd": "5"}, ("max_cost_usd",)),
        ({"max_sessions": 1, "max_cost_usd": float("inf")}, ("max_cost_usd",)),
        ({"max_sessions": 1, "max_cost_usd": float("nan")}, ("max_cost_usd",)),
        ({"max_sessions": 1, "max_cost_usd": 1e30}, ("max_cost_usd",)),
        ({"max_sessions": 1, "selection": {"submitted_before": 1_700_000_000}}, ("selection", "submitted_before")),
        ({"max_sessions": 1, "selection": {"which": "everything"}}, ("selection", "which")),
    ],
)
def test_a_run_request_refuses_loose_types_and_numbers_beyond_their_columns(data: Any, loc: tuple[Any, ...]) -> None:
    assert [found for found, _ in _problems(RunRequest, data)] == [loc]


def test_a_run_request_reads_json_strings_for_its_enum_and_times_and_python_values_too() -> None:
    from_json = RunRequest.model_validate(
        {
            "max_sessions": 2,
            "max_cost_usd": MAX_COST_USD,
            "selection": {"which": "all", "submitted_after": "2026-01-01"},
        }
    )
    from_python = RunRequest(max_sessions=2, selection=RunSelection(which=Which.ALL))

    assert from_json.selection.which is Which.ALL
    assert from_json.selection.submitted_after is not None
    assert from_python.selection.which is Which.ALL
    assert RunRequest.model_validate({"max_sessions": 1, "max_cost_usd": 3}).max_cost_usd == 3.0
