"""The fleet query behind ``GET /scores``: parameters checked into a filter and an order, keyset pages as JSON, or
every matching row streamed as CSV or JSON Lines. A cursor is opaque: the last row's sort value and score id and a
fingerprint of the filters and sort, so that one used with another query is refused (400).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import InvalidParametersError, InvalidRequestError
from session_scoring.models.api import FleetScore, FleetScorePage, MissingToolSession, MissingToolSessionsPage
from session_scoring.models.insights import (
    FleetFilter,
    FleetOrder,
    FleetParams,
    FleetScoreRecord,
    KeysetPosition,
    SortField,
    sort_keys,
)
from session_scoring.models.scores import BAND_NAMES, MAX_SCORE, SCORE_BANDS, Outcome, ScoreStatus, band_for
from session_scoring.repositories.insights import ToolSessionRecord
from session_scoring.services.csv_cells import csv_chunks

JSON_MAX_PAGE = 500
"""Rows per JSON page at most: a page stays far below Lambda's 6 MB response limit (a row is about 1 KB)."""
JSON_DEFAULT_PAGE = 50

_HASH = re.compile(r"^[0-9a-f]{64}$")

_LEADING_COLUMNS = ("score_id", "session_id", "criteria_hash", "status", "total_score", "band")
_TRAILING_COLUMNS = (
    "scored_at",
    "judge_provider",
    "judge_model",
    "agent",
    "alert_type",
    "session_started_at",
    "session_ended_at",
    "stages",
    "tool_calls",
    "source",
    "missing_tools",
    "outcome",
)


def csv_columns(dimensions: tuple[str, ...]) -> tuple[str, ...]:
    """The fleet CSV's header: the score's fields, one column per dimension of the criteria in scope (their rubrics'
    keys), then the judge's and the session's fields."""
    return (*_LEADING_COLUMNS, *dimensions, *_TRAILING_COLUMNS)


class FleetFormat(StrEnum):
    JSON = "json"
    CSV = "csv"
    JSONL = "jsonl"


@dataclass(frozen=True)
class FleetQuery:
    """A checked fleet query, ready for the repository."""

    where: FleetFilter
    order: FleetOrder
    limit: int | None
    format: FleetFormat
    with_total: bool = False


@dataclass(frozen=True)
class StreamedRows:
    """A streamed answer: its media type, a download file name and the text chunks (produced while sent)."""

    media_type: str
    filename: str
    chunks: Iterator[str]


def fingerprint(*parts: Any) -> str:
    """A short digest of the query a cursor belongs to, so that a cursor used with another query is refused."""
    return hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()[:16]


def pack_cursor(body: dict[str, Any]) -> str:
    """An opaque cursor: ``body`` as compact JSON, base64url-encoded without padding."""
    return base64.urlsafe_b64encode(json.dumps(body, separators=(",", ":")).encode()).decode().rstrip("=")


def unpack_cursor(cursor: str, bad: Exception, *keys: str) -> list[Any]:
    """The values of ``keys`` in a cursor ``pack_cursor`` made, or ``bad`` raised for anything else."""
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        return [body[key] for key in keys]
    except (ValueError, KeyError, TypeError):
        raise bad from None


def encode_position(where: FleetFilter, key: str, descending: bool, value: Any, score_id: uuid.UUID) -> str:
    value = value.isoformat() if isinstance(value, datetime) else value
    return pack_cursor({"v": value, "id": str(score_id), "f": fingerprint(asdict(where), key, descending)})


def encode_cursor(where: FleetFilter, order: FleetOrder, last: FleetScoreRecord) -> str:
    return encode_position(where, order.key, order.descending, last.sort_value(order.key), last.score_id)


def decode_cursor(cursor: str, where: FleetFilter, key: str, descending: bool) -> KeysetPosition:
    bad = InvalidRequestError(
        "invalid cursor: pass the next_cursor of a previous page unchanged, with the same filters and sort"
    )
    value, score_id, digest = unpack_cursor(cursor, bad, "v", "id", "f")
    try:
        score_id = uuid.UUID(str(score_id))
    except ValueError:
        raise bad from None
    if digest != fingerprint(asdict(where), key, descending):
        raise InvalidRequestError(
            "the cursor belongs to a query with other filters or another sort: repeat the filters and sort of the "
            "page it came from, or drop the cursor to start again"
        )
    if value is not None and key in (SortField.SCORED_AT, SortField.SESSION_STARTED_AT):
        try:
            value = datetime.fromisoformat(str(value))
        except ValueError:
            raise bad from None
    elif value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SCORE):
        raise bad  # every other sort key is a score or a dimension: a value no score has never reaches the database
    return KeysetPosition(value, score_id)


class UploadTitles(Protocol):
    """The titles of uploaded sessions (``repositories.uploads.UploadRepository``)."""

    def titles(self, session_ids: Sequence[str]) -> dict[str, str]: ...


def to_fleet_score(record: FleetScoreRecord, current_criteria_hash: str) -> FleetScore:
    """The fleet row as the API model: its fields by name, and what is derived from them."""
    return FleetScore.model_validate(
        {
            **vars(record),
            "is_current_criteria": record.criteria_hash == current_criteria_hash,
            "band": None if record.total_score is None else band_for(record.total_score).band,
            "session_facts": record.facts,
        },
        from_attributes=True,
    )


def csv_row(score: FleetScore, dimensions: tuple[str, ...]) -> list[Any]:
    """One CSV row: a dimension the score's rubric does not have is an empty cell."""
    facts = score.session_facts
    breakdown = score.score_breakdown or {}
    return [
        score.score_id,
        score.session_id,
        score.criteria_hash,
        score.status.value,
        score.total_score,
        score.band,
        *(breakdown.get(d) for d in dimensions),
        score.scored_at.isoformat() if score.scored_at else None,
        score.judge_provider,
        score.judge_model,
        *(
            (None,) * 7
            if facts is None
            else (
                facts.agent,
                facts.alert_type,
                facts.started_at.isoformat() if facts.started_at else None,
                facts.ended_at.isoformat() if facts.ended_at else None,
                facts.stages,
                facts.tool_calls,
                facts.source,
            )
        ),
        ";".join(score.missing_tools),
        None if score.outcome is None else score.outcome.value,
    ]


def _one_of(name: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise InvalidRequestError(f"{name} '{value}' is not one of: {', '.join(allowed)}")
    return value


class InsightsReads(Protocol):
    """The fleet's and the missing tools' reads (``repositories.insights``)."""

    def fleet_page(self, where: FleetFilter, order: FleetOrder, limit: int) -> list[FleetScoreRecord]: ...
    def fleet_count(self, where: FleetFilter) -> int: ...
    def fleet_stream(self, where: FleetFilter, order: FleetOrder, limit: int | None) -> Iterator[FleetScoreRecord]: ...
    def tool_sessions(
        self, tool_name: str, where: FleetFilter, after: KeysetPosition | None, limit: int
    ) -> tuple[str, list[ToolSessionRecord]]: ...


@dataclass(eq=False)
class InsightsService:
    """``titles`` names a page's uploads by their task, as the sessions list does (one name per session)."""

    config: ScoringConfig
    repository: InsightsReads
    dimension_keys: Callable[[str | None], tuple[str, ...]] | None = None
    """The dimension keys of the criteria in scope (a hash, or None: every criteria with scores), in their rubrics'
    order: the CSV's dimension columns. None: the current criteria's rubric's."""
    titles: UploadTitles | None = None

    def criteria_filter(self, value: str) -> str | None:
        """``current`` (the criteria in force), ``any`` (None) or a criteria hash; a 400 for anything else."""
        if value == "current":
            return self.config.criteria_hash
        if value == "any":
            return None
        if not _HASH.match(value):
            raise InvalidRequestError(
                f"criteria_hash '{value}' is not 'current', 'any' or a criteria hash (64 lowercase hex digits)"
            )
        return value

    def check(self, params: FleetParams) -> FleetQuery:
        """The parameters as a query, or a 400 saying which one is wrong and what it accepts."""
        output = FleetFormat(_one_of("format", params.format, tuple(FleetFormat)))
        status = ScoreStatus(_one_of("status", params.status, tuple(ScoreStatus)))
        if params.latest_only and status != ScoreStatus.COMPLETED:
            raise InvalidRequestError(
                f"latest_only=true selects each session's latest completed attempt; to list {status.value} attempts "
                "pass latest_only=false"
            )
        low, high = params.min_score, params.max_score
        if params.band is not None:
            bands = {b.band: b for b in SCORE_BANDS}
            band = bands[_one_of("band", params.band, tuple(bands))]
            low = band.min_score if low is None else max(low, band.min_score)
            high = band.max_score if high is None else min(high, band.max_score)
        if low is not None and high is not None and low > high:
            raise InvalidRequestError(f"min_score ({low}) is above max_score ({high}) (after the band's bounds)")
        for name, after, before in (
            ("scored", params.scored_after, params.scored_before),
            ("session_started", params.session_started_after, params.session_started_before),
        ):
            if after is not None and before is not None and after >= before:
                raise InvalidRequestError(f"{name}_after must be before {name}_before")
        compared_to = None
        if (params.compared_to is None) != (params.compared_band is None):
            raise InvalidRequestError("compared_to and compared_band go together: pass both, or neither")
        if params.compared_to is not None and params.compared_band is not None:
            compared_to = self.criteria_filter(params.compared_to)
            if compared_to is None:
                raise InvalidRequestError("compared_to names one criteria: 'current' or a criteria hash, not 'any'")
            _one_of("compared_band", params.compared_band, BAND_NAMES)
        descending = _one_of("order", params.order, ("asc", "desc")) == "desc"
        where = FleetFilter(
            **{f.name: getattr(params, f.name) for f in fields(FleetFilter)}
            | {
                "criteria_hash": self.criteria_filter(params.criteria_hash),
                "status": status,
                "min_score": low,
                "max_score": high,
                "compared_to": compared_to,
                "outcome": None if params.outcome is None else _one_of("outcome", params.outcome, tuple(Outcome)),
            }
        )
        key = self.sort_key(params.sort, where.criteria_hash)
        position = None if params.cursor is None else decode_cursor(params.cursor, where, key, descending)
        limit = params.limit
        if output == FleetFormat.JSON:
            limit = JSON_DEFAULT_PAGE if limit is None else limit
            if limit > JSON_MAX_PAGE:
                raise InvalidRequestError(
                    f"limit {limit} is above {JSON_MAX_PAGE} for format=json; page with the cursor, or use "
                    "format=csv or format=jsonl to stream every row"
                )
        return FleetQuery(where, FleetOrder(key, descending, position), limit, output, params.with_total)

    def sort_key(self, value: str, criteria_hash: str | None) -> str:
        """``value`` as a sort key: a ``SortField``, or a dimension key of the rubric(s) of the criteria in scope
        (``criteria_hash``; None: every rubric in use). Another key is a 422 listing the accepted ones."""
        if value in tuple(SortField):
            return value
        accepted = sort_keys(self._dimensions(criteria_hash))
        if value not in accepted:
            scope = (
                "every rubric in use"
                if criteria_hash is None
                else "the current rubric"
                if criteria_hash == self.config.criteria_hash
                else f"the rubric of criteria {criteria_hash[:12]}"
            )
            raise InvalidParametersError(
                f"sort '{value}' is not one of: {', '.join(accepted)} (the dimensions are those of {scope})"
            )
        return value

    def fleet(self, params: FleetParams) -> FleetScorePage | StreamedRows:
        """``GET /scores``: a JSON page, or (csv, jsonl) the rows streamed. Parameters are checked before anything
        is sent, so a bad one is a 400, never a broken stream."""
        query = self.check(params)
        return self.page(query) if query.format == FleetFormat.JSON else self.stream(query)

    def tool_sessions(
        self, tool_name: str, criteria_hash: str, cursor: str | None, limit: int
    ) -> MissingToolSessionsPage:
        """The sessions whose latest completed score names ``tool_name`` missing (any spelling with the same
        canonical name), newest first, a keyset page at a time, each with the judge's rationale."""
        where = FleetFilter(criteria_hash=self.criteria_filter(criteria_hash))
        keyed = replace(where, missing_tool=tool_name)  # the cursor belongs to this tool too
        key = SortField.SCORED_AT.value
        after = None if cursor is None else decode_cursor(cursor, keyed, key, descending=True)
        canonical, records = self.repository.tool_sessions(tool_name, where, after, limit + 1)
        shown = records[:limit]
        last = shown[-1] if shown else None
        return MissingToolSessionsPage(
            tool_name=tool_name,
            canonical_name=canonical,
            criteria_hash=where.criteria_hash,
            items=[MissingToolSession(**asdict(r), band=band_for(r.total_score).band) for r in shown],
            next_cursor=encode_position(keyed, key, True, last.scored_at, last.score_id)
            if last is not None and len(records) > limit
            else None,
        )

    def page(self, query: FleetQuery) -> FleetScorePage:
        limit = query.limit or JSON_DEFAULT_PAGE
        records = self.repository.fleet_page(query.where, query.order, limit + 1)
        current = self.config.criteria_hash
        shown = records[:limit]
        titles = self.titles.titles([r.session_id for r in shown]) if self.titles else {}
        return FleetScorePage(
            items=[to_fleet_score(r, current).model_copy(update={"title": titles.get(r.session_id)}) for r in shown],
            next_cursor=encode_cursor(query.where, query.order, shown[-1]) if len(records) > limit else None,
            criteria_hash=query.where.criteria_hash,
            sort=query.order.key,
            order="desc" if query.order.descending else "asc",
            limit=limit,
            total_items=self.repository.fleet_count(query.where) if query.with_total else None,
        )

    def _dimensions(self, criteria_hash: str | None) -> tuple[str, ...]:
        if self.dimension_keys is None:
            return self.config.rubric.keys
        return self.dimension_keys(criteria_hash)

    def stream(self, query: FleetQuery) -> StreamedRows:
        """Every matching row from the cursor on (up to the limit), read from the database while it is sent. The
        query starts here, so a database that is down is a 503, not a broken stream."""
        current = self.config.criteria_hash
        records = self.repository.fleet_stream(query.where, query.order, query.limit)
        scores = (to_fleet_score(record, current) for record in records)
        if query.format == FleetFormat.CSV:
            keys = self._dimensions(query.where.criteria_hash)
            rows = (csv_row(score, keys) for score in scores)
            return StreamedRows("text/csv", "scores.csv", csv_chunks(csv_columns(keys), rows))
        return StreamedRows("application/x-ndjson", "scores.jsonl", (s.model_dump_json() + "\n" for s in scores))
