"""The rubric: what the judge scores (dimensions), how the total is made, what caps it, and which failure tags it may
name. Defined in the criteria file (``config/rubrics/*.yaml``, chosen by ``rubric:`` in ``scoring_config.yaml``).

The judge's output schema stays code: :meth:`Rubric.output_json_schema` generates it from the rubric (exactly the
rubric's keys, each within its maximum, the total rule, the ceiling field, tags only from the vocabulary), and
:meth:`Rubric.parse_verdict` checks an answer against every rule, naming the rule an answer breaks. The design's
methodology rubric (four 25-point dimensions, their sum) generates byte for byte the schema the service always
sent, so the criteria hash of its scores does not change.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from session_scoring.errors import JudgeOutputError
from session_scoring.models.judge import JudgeClaim, JudgeOutputSchema, VerdictEnvelope
from session_scoring.models.scores import Outcome

KEY_PATTERN = r"^[a-z][a-z0-9_]{0,62}$"
"""A dimension key, ceiling field or failure tag: lower-case snake_case (it is a JSON key and a stored value)."""

RESERVED_FIELDS = frozenset({*JudgeOutputSchema.model_fields, "failure_tags", "claims"})
"""Output fields the rubric's ceiling field may not take."""

EVENT_PATTERN = r"^[0-9]+(\.[0-9]+)?$"
"""A timeline event as the rendered session numbers it: ``2`` (a stage) or ``2.3`` (its third step)."""

OFFLINE_SIGNALS: dict[str, str] = {
    "flow": "hypotheses tested, depth against the alert's severity, failures recovered, no wasteful repeats",
    "consistency": "a conclusion grounded in what the tools returned, confidence matching the evidence",
    "tool_use": "the alert's resources covered, forensic and distinct tools used, available tools not left unused",
    "synthesis": "a final analysis that is grounded, names the alert's resources and says what to do",
}
"""The signals the offline (heuristic) judge measures, each on 0-25 (``judge/heuristic.py``); a rubric's dimension
names those that feed it (``offline_signals``), and its points are their mean share of its maximum."""

OFFLINE_FINDINGS: dict[str, str] = {
    "premature": "fewer successful calls than the alert's severity calls for, then a conclusion",
    "unused_tools": "available tools never called",
    "overconfident": "high confidence on less evidence than the alert's severity calls for",
    "shallow": "fewer successful calls than expected, or failed calls never recovered",
    "ungrounded": "the conclusion names values or words that no tool returned, and too few that one did",
    "missed_reference": "the conclusion misses the reference root cause",
}
"""What the offline judge can find; a failure tag names the finding that gives it (``offline_finding``)."""

_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def number_word(count: int) -> str:
    """``count`` in words up to ten (``four``), in digits above."""
    return _NUMBER_WORDS[count] if 0 <= count < len(_NUMBER_WORDS) else str(count)


@dataclass(frozen=True)
class BreakdownFault:
    """The first rule of a rubric a breakdown breaks (:meth:`Rubric.breakdown_fault`): its keys are not exactly the
    rubric's (``dimensions``), one key's points are outside its maximum (``maximum``), or a ``sum`` rubric's points
    do not make the total (``sum``: ``expected`` is what they make)."""

    rule: Literal["dimensions", "maximum", "sum"]
    missing: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    key: str = ""
    points: int = 0
    maximum: int = 0
    expected: int = 0

    def keys_text(self) -> str:
        """``lacks a, b and has unknown c``: what is wrong with the keys."""
        parts = ([f"lacks {', '.join(self.missing)}"] if self.missing else []) + (
            [f"has unknown {', '.join(self.unknown)}"] if self.unknown else []
        )
        return " and ".join(parts)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RubricDimension(_Strict):
    """One scored dimension: the key the judge answers under, its label, its maximum and what the judge reads."""

    key: str = Field(pattern=KEY_PATTERN)
    label: str = Field(min_length=1, max_length=80)
    max_points: int = Field(ge=1, le=100)
    description: str = Field(min_length=1)
    offline_signals: tuple[str, ...] = Field(
        default=(),
        description="The offline (heuristic) judge's measured signals that feed this dimension; a rubric judged "
        "offline needs them on every dimension (judge/heuristic.py lists the signals)",
    )


class CeilingRange(_Strict):
    """The totals one value of the ceiling field allows (inclusive, within 0-100)."""

    min: int = Field(ge=0, le=100)
    max: int = Field(ge=0, le=100)
    description: str = ""
    offline_outcome: Outcome | None = Field(
        default=None, description="The outcome against a reference that gives this value, for the offline judge"
    )

    @model_validator(mode="after")
    def _ordered(self) -> CeilingRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


class Ceilings(_Strict):
    """An enumerated verdict field the judge must answer, each value capping the total to its range."""

    field: str = Field(pattern=KEY_PATTERN)
    label: str = Field(min_length=1, max_length=80)
    description: str = Field(min_length=1)
    values: dict[str, CeilingRange] = Field(min_length=2)

    @field_validator("field")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value in RESERVED_FIELDS:
            raise ValueError(f"'{value}' is a field of every verdict already; name the ceiling field otherwise")
        return value

    @field_validator("values")
    @classmethod
    def _keys(cls, values: dict[str, CeilingRange]) -> dict[str, CeilingRange]:
        for key in values:
            if not re.match(KEY_PATTERN, key):
                raise ValueError(f"value '{key}' is not lower-case snake_case")
        return values


class FailureTag(_Strict):
    """One tag of the closed failure vocabulary and when the judge should give it."""

    tag: str = Field(pattern=KEY_PATTERN)
    description: str = Field(min_length=1)
    offline_finding: str | None = Field(default=None, description="The offline judge's finding that gives this tag")


class Rubric(_Strict):
    """A scoring rubric (see the module docstring)."""

    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_-]*$")
    description: str = ""
    dimensions: tuple[RubricDimension, ...] = Field(min_length=1, max_length=20)
    total: Literal["sum", "holistic"] = "sum"
    ceilings: Ceilings | None = None
    failure_tags: tuple[FailureTag, ...] = ()
    claims_cite_events: bool = Field(
        default=False, description="The verdict lists its claims, each citing the timeline event it rests on"
    )
    judge_prompt: str | None = Field(
        default=None, min_length=1, description="The judge prompt of this rubric; without it, the file's judge_prompt"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        repeated = [key for key, n in Counter(d.key for d in self.dimensions).items() if n > 1]
        if repeated:
            raise ValueError(f"dimension key {', '.join(repeated)} is given more than once; keys must be unique")
        tags = [tag for tag, n in Counter(t.tag for t in self.failure_tags).items() if n > 1]
        if tags:
            raise ValueError(f"failure tag {', '.join(tags)} is given more than once")
        return self

    def offline_problems(self) -> list[tuple[tuple[str | int, ...], str]]:
        """What the offline judge cannot judge in this rubric: (where in the rubric, the problem), empty when every
        dimension names known signals and every finding named is known."""
        problems: list[tuple[tuple[str | int, ...], str]] = []
        for index, d in enumerate(self.dimensions):
            if not d.offline_signals:
                problems.append(
                    (
                        ("dimensions", index),
                        f"dimension '{d.key}' has no offline_signals: the offline judge has no mapping for it; "
                        f"name which of its signals feed it ({', '.join(OFFLINE_SIGNALS)})",
                    )
                )
            unknown = [s for s in d.offline_signals if s not in OFFLINE_SIGNALS]
            if unknown:
                problems.append(
                    (
                        ("dimensions", index, "offline_signals"),
                        f"dimension '{d.key}' names unknown offline signals {', '.join(unknown)}; the offline "
                        f"judge measures {', '.join(OFFLINE_SIGNALS)}",
                    )
                )
        for index, t in enumerate(self.failure_tags):
            if t.offline_finding is not None and t.offline_finding not in OFFLINE_FINDINGS:
                problems.append(
                    (
                        ("failure_tags", index, "offline_finding"),
                        f"failure tag '{t.tag}' names unknown offline finding {t.offline_finding}; the offline "
                        f"judge finds {', '.join(OFFLINE_FINDINGS)}",
                    )
                )
        return problems

    # ---- what the rubric says about its dimensions

    @cached_property
    def keys(self) -> tuple[str, ...]:
        return tuple(d.key for d in self.dimensions)

    @cached_property
    def maxima(self) -> dict[str, int]:
        return {d.key: d.max_points for d in self.dimensions}

    @cached_property
    def max_sum(self) -> int:
        return sum(d.max_points for d in self.dimensions)

    @cached_property
    def tag_names(self) -> tuple[str, ...]:
        return tuple(t.tag for t in self.failure_tags)

    def scaled_total(self, breakdown: dict[str, int]) -> int:
        """A ``sum`` rubric's total: the dimensions' sum scaled to 0-100, rounded half up (the sum itself when the
        maxima add up to 100)."""
        points = sum(breakdown[key] for key in self.keys)
        return (200 * points + self.max_sum) // (2 * self.max_sum)

    def breakdown_fault(self, breakdown: dict[str, int], total_score: int) -> BreakdownFault | None:
        """The first rule of this rubric ``breakdown`` (with ``total_score``) breaks, None when it keeps them all:
        exactly the rubric's keys, each within its maximum, and under ``sum`` points that make the total. A judge's
        verdict (:meth:`check`) and a human label are held to the same rules."""
        missing = tuple(key for key in self.keys if key not in breakdown)
        unknown = tuple(sorted(set(breakdown) - set(self.keys)))
        if missing or unknown:
            return BreakdownFault("dimensions", missing=missing, unknown=unknown)
        for key, maximum in self.maxima.items():
            if not 0 <= breakdown[key] <= maximum:
                return BreakdownFault("maximum", key=key, points=breakdown[key], maximum=maximum)
        if self.total == "sum":
            expected = self.scaled_total(breakdown)
            if expected != total_score:
                return BreakdownFault("sum", expected=expected)
        return None

    def ceiling_range(self, value: str | None) -> CeilingRange | None:
        if self.ceilings is None or value is None:
            return None
        return self.ceilings.values.get(value)

    def capped(self, total: int, value: str | None) -> int:
        """``total`` brought within the range the ceiling ``value`` allows (unchanged without ceilings)."""
        allowed = self.ceiling_range(value)
        return total if allowed is None else max(allowed.min, min(allowed.max, total))

    def content(self) -> dict[str, Any]:
        """The rubric as hashed into the criteria (its judge prompt is hashed as the criteria's prompt instead)."""
        return self.model_dump(mode="json", exclude={"judge_prompt"})

    # ---- the output schema generated from the rubric

    @cached_property
    def _uniform_max(self) -> int | None:
        maxima = set(self.maxima.values())
        return next(iter(maxima)) if len(maxima) == 1 else None

    def _total_description(self) -> tuple[str, str]:
        """The schema's own description and ``total_score``'s, saying the total rule."""
        words = number_word(len(self.dimensions))
        if self.total == "sum" and self.max_sum == 100:
            return (
                f"Output schema for the judge LLM. ``total_score`` must equal the sum of the {words} dimensions.",
                "Overall score 0-100: the sum of score_breakdown",
            )
        if self.total == "sum":
            rule = f"the sum of score_breakdown x 100 / {self.max_sum}, rounded half up"
            return (
                f"Output schema for the judge LLM. ``total_score`` must equal the sum of the {words} dimensions "
                f"scaled to 0-100 ({rule}).",
                f"Overall score 0-100: {rule}",
            )
        cap = f", within the range the {self.ceilings.field} allows" if self.ceilings else ""
        return (
            f"Output schema for the judge LLM. ``total_score`` is one holistic 0-100 assessment{cap}; the {words} "
            "dimensions are its sub-assessments.",
            f"Overall score 0-100: one holistic assessment{cap}",
        )

    def output_json_schema(self) -> dict[str, Any]:
        """The JSON schema of a valid verdict under this rubric (callers must not mutate it)."""
        return self._schema

    @cached_property
    def _schema(self) -> dict[str, Any]:
        envelope = VerdictEnvelope.model_json_schema()
        each = f"each 0-{self._uniform_max}" if self._uniform_max is not None else "each within its maximum"
        breakdown = {
            "additionalProperties": False,
            "description": f"Points per dimension, {each}.",
            "properties": {
                d.key: {
                    "description": f"{d.label}, 0-{d.max_points} points",
                    "maximum": d.max_points,
                    "minimum": 0,
                    "title": d.key.replace("_", " ").title(),
                    "type": "integer",
                }
                for d in self.dimensions
            },
            "required": list(self.keys),
            "title": "ScoreBreakdown",
            "type": "object",
        }
        schema_description, total_description = self._total_description()
        properties: dict[str, Any] = {
            "total_score": {
                "description": total_description,
                "maximum": 100,
                "minimum": 0,
                "title": "Total Score",
                "type": "integer",
            },
            "score_breakdown": {"$ref": "#/$defs/ScoreBreakdown", "description": f"Points per dimension, {each}"},
            "score_reasoning": envelope["properties"]["score_reasoning"],
        }
        required = ["total_score", "score_breakdown", "score_reasoning"]
        if self.ceilings is not None:
            ranges = "; ".join(f"{value} {r.min}-{r.max}" for value, r in self.ceilings.values.items())
            properties[self.ceilings.field] = {
                "description": f"{self.ceilings.label}: {self.ceilings.description} (allowed totals: {ranges})",
                "enum": list(self.ceilings.values),
                "title": self.ceilings.field.replace("_", " ").title(),
                "type": "string",
            }
            required.append(self.ceilings.field)
        if self.failure_tags:
            properties["failure_tags"] = {
                "description": "Failure tags from the closed vocabulary, each at most once (empty when none applies)",
                "items": {"enum": list(self.tag_names), "type": "string"},
                "title": "Failure Tags",
                "type": "array",
            }
            required.append("failure_tags")
        if self.claims_cite_events:
            claim = JudgeClaim.model_json_schema()
            claim["properties"]["event"]["pattern"] = EVENT_PATTERN
            properties["claims"] = {
                "description": "The verdict's claims, each citing the timeline event (stage or step number of the "
                "session, e.g. 2.3) it rests on",
                "items": {"$ref": "#/$defs/JudgeClaim"},
                "minItems": 1,
                "title": "Claims",
                "type": "array",
            }
            required.append("claims")
        for name in ("missing_tools", "alternative_approaches", "outcome", "outcome_reason"):
            properties[name] = envelope["properties"][name]
        required += ["outcome", "outcome_reason"]
        definitions = {**envelope["$defs"], "ScoreBreakdown": breakdown}
        if self.claims_cite_events:
            definitions["JudgeClaim"] = claim
        return {
            "$defs": definitions,
            "additionalProperties": False,
            "description": schema_description,
            "properties": properties,
            "required": required,
            "title": "JudgeOutputSchema",
            "type": "object",
        }

    def rules_text(self) -> str:
        """The rubric's rules in a few lines, for the prompt's ``{{OUTPUT_SCHEMA}}``."""
        lines = [f"score_breakdown (rubric '{self.name}'), one integer per dimension:"]
        lines += [f"- {d.key} ({d.label}, 0-{d.max_points}): {d.description.strip()}" for d in self.dimensions]
        if self.total == "sum":
            lines.append(self._total_description()[1].replace("Overall score 0-100: ", "total_score = ") + ".")
        else:
            lines.append("total_score: your one holistic 0-100 assessment; the dimensions are its sub-assessments.")
        if self.ceilings is not None:
            lines.append(f"{self.ceilings.field} ({self.ceilings.label}): {self.ceilings.description.strip()}")
            lines += [f"- {value}: total_score {r.min}-{r.max}" for value, r in self.ceilings.values.items()]
        if self.failure_tags:
            lines.append("failure_tags, only from this list, each at most once:")
            lines += [f"- {t.tag}: {t.description.strip()}" for t in self.failure_tags]
        if self.claims_cite_events:
            lines.append(
                "claims: every claim of your reasoning, each with the event (stage or step number, e.g. 2.3) of the "
                "session it rests on."
            )
        return "\n".join(lines)

    # ---- checking an answer

    def parse_verdict(self, data: Any) -> JudgeOutputSchema:
        """``data`` (the judge's parsed JSON) as a verdict, or :class:`JudgeOutputError` naming the rule it breaks."""
        if not isinstance(data, dict):
            raise JudgeOutputError("the JSON does not match the schema: response: expected one JSON object")
        fields = dict(data)
        ceiling: Any = None
        if self.ceilings is not None:
            if self.ceilings.field not in fields:
                raise JudgeOutputError(
                    f"the JSON does not match the schema: {self.ceilings.field}: Field required (the ceiling field, "
                    f"one of {', '.join(self.ceilings.values)})"
                )
            ceiling = fields.pop(self.ceilings.field)
        extras: dict[str, Any] = {}
        for name, allowed in (("failure_tags", bool(self.failure_tags)), ("claims", self.claims_cite_events)):
            if allowed:
                extras[name] = fields.pop(name, None)
        try:
            output = JudgeOutputSchema.model_validate(
                {**fields, **{k: v for k, v in extras.items() if v is not None}, "ceiling": ceiling}
            )
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'response'}: {err['msg']}" for err in exc.errors()[:10]
            )
            raise JudgeOutputError(f"the JSON does not match the schema: {problems}") from exc
        self.check(output)
        return output

    def check(self, output: JudgeOutputSchema) -> None:
        """Raise :class:`JudgeOutputError` naming the first rule of this rubric ``output`` breaks."""
        fault = self.breakdown_fault(output.score_breakdown, output.total_score)
        if fault is not None and fault.rule == "dimensions":
            raise JudgeOutputError(
                f"rule 'dimensions': score_breakdown {fault.keys_text()}; it must have exactly {', '.join(self.keys)}"
            )
        if fault is not None and fault.rule == "maximum":
            raise JudgeOutputError(
                f"rule 'maximum': score_breakdown.{fault.key} is {fault.points}; it must be within 0-{fault.maximum}"
            )
        if fault is not None:
            scaled = "" if self.max_sum == 100 else f" (scaled to 0-100 from {self.max_sum})"
            raise JudgeOutputError(
                f"rule 'total: sum': total_score is {output.total_score} but the score_breakdown dimensions "
                f"add up to {fault.expected}{scaled}; total_score must equal their sum"
            )
        if self.ceilings is not None:
            allowed = self.ceiling_range(output.ceiling)
            if allowed is None:
                raise JudgeOutputError(
                    f"rule 'ceiling {self.ceilings.field}': {output.ceiling!r} is not one of "
                    f"{', '.join(self.ceilings.values)}"
                )
            if not allowed.min <= output.total_score <= allowed.max:
                raise JudgeOutputError(
                    f"rule 'ceiling {self.ceilings.field}={output.ceiling}': it allows a total_score of "
                    f"{allowed.min}-{allowed.max} but total_score is {output.total_score}"
                )
        elif output.ceiling is not None:
            raise JudgeOutputError("rule 'ceiling': this rubric has no ceiling field")
        unknown_tags = [tag for tag in output.failure_tags if tag not in self.tag_names]
        if unknown_tags:
            vocabulary = ", ".join(self.tag_names) or "none: this rubric has no failure tags"
            raise JudgeOutputError(
                f"rule 'failure_tags': {', '.join(unknown_tags)} not in the vocabulary ({vocabulary})"
            )
        repeated = [tag for tag, n in Counter(output.failure_tags).items() if n > 1]
        if repeated:
            raise JudgeOutputError(f"rule 'failure_tags': {', '.join(repeated)} given more than once")
        if self.claims_cite_events and not output.claims:
            raise JudgeOutputError("rule 'claims': list at least one claim, each citing its timeline event")
        if not self.claims_cite_events and output.claims:
            raise JudgeOutputError("rule 'claims': this rubric takes no claims")
