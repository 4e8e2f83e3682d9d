"""The read models: tables derived from the score attempts, kept in step by the verdict's statement
(``ScoreRepository.complete``), so that analytics, trends and the criteria comparison read a few rows whatever the
number of scores. One module per model: its ``upkeep`` (the data-modifying CTEs moving it by one verdict) and, for a
model derived from another, its ``rebuild`` (run by :func:`rebuild_tables`). No migration imports a module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, String, Table, bindparam, func, literal, literal_column, or_, select, text, union_all
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db.schema import ANY_CRITERIA


def rebuild_tables(engine: Engine, tables: Sequence[str], statements: Sequence[Any]) -> None:
    """Empty ``tables`` and fill them again with ``statements``, in one transaction holding them locked against
    writes: a verdict stored meanwhile waits, then applies its change to the rebuilt rows."""
    with engine.connect() as autocommit:
        conn = autocommit.execution_options(isolation_level="READ COMMITTED")
        with conn.begin():
            conn.execute(text(f"LOCK TABLE {', '.join(tables)} IN EXCLUSIVE MODE"))
            for table in reversed(tables):
                conn.execute(text(f"DELETE FROM {table}"))  # noqa: S608 - the module's own table names
            for statement in statements:
                conn.execute(statement)


PLUS: Any = literal_column("1")
MINUS: Any = literal_column("-1")
"""A delta's sign, as literal SQL."""


def constants(name: str, items: list[str], alias: str) -> Any:
    """A one-column table of constant strings, as a UNION of literals: a VALUES with bound literals would make the
    verdict statement uncacheable (SQLAlchemy would compile it on every call)."""
    rows = [select(literal_column(f"'{item}'", String).label(name)) for item in items]
    return union_all(*rows).subquery(alias)


def scopes(name: str) -> Any:
    """The criteria hashes a verdict's row is kept under: its own (``p_criteria_hash``) and ``ANY_CRITERIA``."""
    return (
        select(bindparam("p_criteria_hash", type_=String).label("criteria_hash"))
        .union_all(select(literal(ANY_CRITERIA, String).label("criteria_hash")))
        .subquery(name)
    )


def dimension_entries(dimensions: Any, name: str) -> Any:
    """A score's dimension map (JSONB, key: points) as rows ``key``, ``value`` (text), to join beside its row."""
    return func.jsonb_each_text(dimensions).table_valued("key", "value").render_derived(name=name)


def replaced(members: Any, key: str) -> Any:
    """``key`` of the member a ``trend_members`` change replaced (its ``previous`` JSON), as text."""
    return members.c.previous.op("->>")(literal_column(f"'{key}'"))


def add_counts(table: Table, deltas: Any, key: Sequence[str], sums: dict[str, Any], name: str) -> Any:
    """The CTE adding ``sums`` (aggregates of ``deltas`` per ``key``, by ``table``'s column) to ``table``'s rows, a
    key whose sums are all zero left alone, as atomic increments in key order: concurrent statements lock the rows in
    the same order."""
    columns = [deltas.c[column] for column in key]
    counts = insert(table).from_select(
        [*key, *sums],
        select(*columns, *sums.values())
        .group_by(*columns)
        .having(or_(*[total != 0 for total in sums.values()]))
        .order_by(*columns),
    )
    return counts.on_conflict_do_update(
        index_elements=list(key), set_={column: table.c[column] + counts.excluded[column] for column in sums}
    ).cte(name)
