"""A hot statement kept in the database as a PL/pgSQL function, so PostgreSQL parses it once per connection.

pg8000 sends every statement unnamed, so the server parses and plans its whole text on every call. For the
verdict's 28 KB statement that is about 7 ms a job (docs/performance.md). PL/pgSQL keeps the plan of each statement
in a function for the life of the server connection. Calling the function sends a short text; it needs no
session-level ``PREPARE``, which would pin a client to one server connection behind RDS Proxy.

The body is the statement as the service would send it, compiled by the engine's dialect (pg8000). Each ``p_*``
parameter becomes a function argument of the parameter's type. Every other bound value is a constant of the
statement's construction (a status, a bucket name), written into the body as a literal of its type. The
function's name ends with a hash of its definition. Changed code therefore calls a function of a new name and never
runs an old body. ``install`` creates the functions of the running code (with the migrations, under their lock) and
drops older ones of the same prefix. A caller whose function is missing (a deploy whose migration has not run yet, a
database migrated without it) runs the statement itself: slower, same result.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Dialect, bindparam, column, literal, make_url, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.selectable import TextualSelect
from sqlalchemy.types import NullType, TypeEngine

from session_scoring.db.engine import server_sqlstate

UNDEFINED_FUNCTION_SQLSTATE = "42883"
"""``undefined_function``: the routine of this code is not installed in the database."""

_PLACEHOLDER = re.compile(r"%s|%%")
_QUOTE = "$routine$"


@dataclass(frozen=True)
class Routine:
    """One statement as a function: ``definition`` creates it, ``call`` runs it with the statement's own ``p_*``
    parameters and answers the statement's rows, its columns named and typed as the statement's."""

    name: str
    prefix: str
    definition: str
    call: TextualSelect


def as_routine(prefix: str, statement: Any, *, writes: bool) -> Routine:
    """``statement`` as a routine named ``<prefix>_<hash>``; ``writes``: it changes data (else it is declared
    ``STABLE``, a read).

    Raises ValueError for a statement this cannot carry as written: a bound value that is neither a ``p_*``
    parameter nor a constant, a parameter or column without a SQL type, or more arguments than PostgreSQL allows a
    function (100).
    """
    dialect = make_url("postgresql+pg8000://").get_dialect()()  # the engine's driver: its placeholders, its casts
    compiled = statement.compile(dialect=dialect)
    expanding = sorted(key for key, bind in compiled.binds.items() if bind.expanding)
    if expanding:
        raise ValueError(f"{prefix}: {expanding} expand at execution; write the IN list as separate values")
    order = list(compiled.positiontup or ())
    binds = {key: compiled.binds[key] for key in order}
    arguments = [key for key in dict.fromkeys(order) if key.startswith("p_")]
    if len(arguments) > 100:
        raise ValueError(f"{prefix}: {len(arguments)} parameters, more than a PostgreSQL function takes (100)")
    positions = iter(order)

    def placeholder(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        name = next(positions)
        if name.startswith("p_"):
            return str(name)
        value = compiled.params.get(name)
        if value is None or callable(value):
            raise ValueError(f"{prefix}: bound value {name!r} is neither a p_* parameter nor a constant")
        constant = literal(value, binds[name].type).compile(dialect=dialect, compile_kwargs={"literal_binds": True})
        rendered = str(constant.string).replace("%%", "%")
        return f"CAST({rendered} AS {binds[name].type.compile(dialect=dialect)})"

    body = _PLACEHOLDER.sub(placeholder, compiled.string)
    if _QUOTE in body:
        raise ValueError(f"{prefix}: the statement contains the body's quote {_QUOTE}")
    signature = ", ".join(f"{a} {_sql_type(prefix, a, binds[a].type, dialect)}" for a in arguments)
    # Named apart from sqlalchemy.column, which the call below uses (a comprehension variable must not shadow it).
    columns = {selected.key: selected.type for selected in statement.selected_columns}
    returns = ", ".join(f"{key} {_sql_type(prefix, key, kind, dialect)}" for key, kind in columns.items())
    digest = hashlib.sha256(f"{signature}\n{returns}\n{body}".encode()).hexdigest()[:16]
    routine_name = f"{prefix}_{digest}"
    # The answer's columns are variables of the function too: a same-named column of a table in the body is the
    # column (use_column), as it is in the statement run on its own.
    definition = (
        f"CREATE OR REPLACE FUNCTION {routine_name}({signature}) RETURNS TABLE ({returns}) LANGUAGE plpgsql "
        f"{'VOLATILE' if writes else 'STABLE'} AS {_QUOTE}\n#variable_conflict use_column\nBEGIN\n"
        f"RETURN QUERY {body};\nEND\n{_QUOTE}"
    )
    call = (
        # The name and arguments are the statement's own identifiers (code, never input); values are bound.
        text(f"SELECT * FROM {routine_name}({', '.join(f'{a} => :{a}' for a in arguments)})")  # noqa: S608
        .bindparams(*[bindparam(a, type_=binds[a].type) for a in arguments])
        # Positional columns: the result is matched to them by position, not by name on every execution.
        .columns(*[column(key, kind) for key, kind in columns.items()])
    )
    return Routine(routine_name, prefix, definition, call)


def _sql_type(prefix: str, name: str, kind: TypeEngine[Any], dialect: Dialect) -> str:
    if isinstance(kind, NullType):
        raise ValueError(f"{prefix}: {name!r} has no SQL type; give it one (bindparam type_, type_coerce)")
    return kind.compile(dialect=dialect)


def is_missing(exc: BaseException, routine: Routine) -> bool:
    """True when ``exc`` says ``routine`` is not in the database."""
    return (
        isinstance(exc, DBAPIError)
        and server_sqlstate(exc.orig) == UNDEFINED_FUNCTION_SQLSTATE
        and routine.name in str(exc.orig)
    )


def install(conn: Connection, routines: Sequence[Routine]) -> list[str]:
    """Create ``routines`` (idempotent) and drop every other function of their prefixes: another release's body.
    Returns the names dropped. Run in the caller's transaction (the migrations', under their advisory lock)."""
    dropped: list[str] = []
    for routine in routines:
        conn.execute(text(routine.definition).execution_options(no_parameters=True))
        stale = conn.execute(
            text(
                "SELECT p.oid::regprocedure::text AS signature FROM pg_proc p "
                "WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE :pattern "
                "AND p.proname <> :name"
            ),
            {"pattern": routine.prefix.replace("_", r"\_") + r"\_%", "name": routine.name},
        ).all()
        for row in stale:
            conn.execute(text(f"DROP FUNCTION IF EXISTS {row.signature}"))
            dropped.append(str(row.signature))
    return dropped
