"""The output schema the Claude judge sends: the same constraints as the model's, each text once, fewer tokens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from anthropic import transform_schema

from session_scoring.configuration.criteria import default_rubric
from session_scoring.judge.claude import _inlined, sent_output_schema
from session_scoring.judge.rendering import estimate_tokens

RUBRIC = default_rubric()


def _resolved(node: Any, definitions: dict[str, Any]) -> Any:
    """``node`` with every ``$ref`` replaced by its definition (the oracle: plain substitution, nothing dropped)."""
    if isinstance(node, list):
        return [_resolved(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = _resolved(definitions[node["$ref"].rsplit("/", 1)[1]], definitions)
        return {**target, **{key: _resolved(value, definitions) for key, value in node.items() if key != "$ref"}}
    return {key: _resolved(value, definitions) for key, value in node.items() if key != "$defs"}


def _constraints(node: Any) -> Any:
    """What the API enforces: the schema without its ``description`` and ``title`` annotations."""
    if isinstance(node, list):
        return [_constraints(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: {name: _constraints(sub) for name, sub in value.items()} if key == "properties" else _constraints(value)
        for key, value in node.items()
        if key not in ("description", "title")
    }


def _descriptions(node: Any, out: list[str]) -> list[str]:
    if isinstance(node, list):
        for item in node:
            _descriptions(item, out)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "properties":
                for sub in value.values():
                    _descriptions(sub, out)
            elif key == "description" and isinstance(value, str):
                out.append(value)
            else:
                _descriptions(value, out)
    return out


def test_the_sent_schema_enforces_exactly_what_the_models_schema_does() -> None:
    full = transform_schema(RUBRIC.output_json_schema())

    sent = sent_output_schema(RUBRIC)

    assert _constraints(sent) == _constraints(_resolved(full, full["$defs"]))
    assert "$ref" not in json.dumps(sent)
    assert sent["required"] == ["total_score", "score_breakdown", "score_reasoning", "outcome", "outcome_reason"]
    assert sent["properties"]["outcome"]["enum"] == ["found", "partly_found", "missed", "no_reference"]
    breakdown = sent["properties"]["score_breakdown"]
    assert set(breakdown["required"]) == {"logical_flow", "consistency", "tool_relevance", "synthesis_quality"}
    assert breakdown["additionalProperties"] is False


def test_the_sent_schema_says_each_thing_once_and_costs_fewer_tokens() -> None:
    full = transform_schema(RUBRIC.output_json_schema())

    sent = sent_output_schema(RUBRIC)

    descriptions = _descriptions(sent, [])
    assert len(descriptions) == len(set(descriptions))
    assert "Points per dimension, each 0-25." in descriptions  # what the dimensions are worth is kept
    assert "Overall score 0-100: the sum of score_breakdown" in descriptions  # the total's rule is kept
    assert "Tools that should have been used" in descriptions
    compact = json.dumps(sent, separators=(",", ":"))
    assert estimate_tokens(compact) < 0.7 * estimate_tokens(json.dumps(full, separators=(",", ":")))


def test_a_field_named_like_a_keyword_is_kept() -> None:
    schema = {
        "type": "object",
        "properties": {
            "description": {"type": "string", "description": "what it is"},
            "items": {"$ref": "#/$defs/Item"},
        },
        "$defs": {"Item": {"type": "object", "description": "an item", "properties": {}}},
    }

    inlined = _inlined(schema)

    assert inlined["properties"]["description"] == {"type": "string", "description": "what it is"}
    assert inlined["properties"]["items"] == {"type": "object", "description": "an item", "properties": {}}


def test_a_recursive_definition_is_refused_rather_than_expanded_forever() -> None:
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
    schema = {"$ref": "#/$defs/Node", "$defs": {"Node": node}}

    with pytest.raises(ValueError, match="recursive"):
        _inlined(schema)
