"""The values the fleet query's text filters (agent, alert type, missing tool) can take, with their session counts:
what the dashboard offers as a filter is typed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from session_scoring.models.api import FilterValue, FilterValues
from session_scoring.repositories.facets import FacetValue


class FacetReads(Protocol):
    """The values the fleet's text filters take, with their sessions (``repositories.facets``)."""

    def fact_values(self, field: str, criteria_hash: str | None, limit: int) -> list[FacetValue]: ...
    def missing_tool_values(self, criteria_hash: str | None, limit: int) -> list[FacetValue]: ...


@dataclass(eq=False)
class FacetService:
    """``criteria_filter`` reads ``current``, ``any`` or a hash as the fleet query does (a 400 otherwise)."""

    repository: FacetReads
    criteria_filter: Callable[[str], str | None]

    def values(self, field: str, criteria_hash: str, limit: int) -> FilterValues:
        """``field`` is ``agent``, ``alert_type`` (session facts) or ``missing_tool`` (the route allows only these)."""
        criteria = self.criteria_filter(criteria_hash)
        if field == "missing_tool":
            found = self.repository.missing_tool_values(criteria, limit)
        else:
            found = self.repository.fact_values(field, criteria, limit)
        return FilterValues(
            field=field,
            criteria_hash=criteria,
            values=[FilterValue(value=v.value, sessions=v.sessions) for v in found],
        )
