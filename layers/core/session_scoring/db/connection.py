"""A pg8000 connection that sends each parameterised statement in one round trip, and prepares the ones it runs again.

pg8000 (1.31) executes a statement with parameters in three round trips to the server: Parse, then Describe, then
Bind/Execute, each waiting for the server's answer. PostgreSQL's extended protocol needs none of those waits: libpq
and psycopg send Parse, Bind, Describe, Execute and Sync in one write and read the answers once (issue 10: a GET's
single statement paid 0.60 ms here, 0.42 ms pipelined).

The server also parses and plans each unnamed statement again on every execution. Like psycopg 3
(``prepare_threshold``) and asyncpg (its statement cache), a statement text this connection runs for the
``prepare_threshold``-th time is prepared as a named server-side statement, and from then on runs as Bind/Execute of
that name: one round trip, no parse, and PostgreSQL's plan cache (0.20 ms for that statement). The execution that
prepares it is itself one round trip (Parse under the name, then Bind, Describe, Execute, Sync), where pg8000's own
``prepare_statement`` waits for a Describe first (0.25 ms more for the GET's statement here). The plan cache keeps
planning each execution for its values until it has seen five, then keeps a generic plan only if its estimated cost
is no worse than theirs (``plan_cache_mode=auto``): a statement whose plan depends on a parameter's value (a partial
index whose predicate a parameter decides) stays custom-planned. A generic plan cannot infer an ``ON CONFLICT ...
WHERE`` arbiter index from parameters (it fails), so such predicates are written into the statement as literals
(``repositories/scores.py``). At most :data:`PREPARED_STATEMENTS` are kept per connection (the least recently used is
closed). Only statements with parameters are prepared: transaction control (``begin``, ``commit``, ``rollback``)
never is.

Named statements are session state: an RDS Proxy pins a client connection that has them to one database
connection, which costs the proxy its multiplexing. ``SCORING_DATABASE_PREPARED_STATEMENTS`` turns preparing off
(``auto`` turns it off under IAM authentication, the template's RDS Proxy); pipelining alone creates no state.

A prepared statement the server no longer has (``26000``) or whose result type a migration changed (``0A000``,
"cached plan must not change result type") is forgotten and, outside a transaction, run again unprepared; inside
one the error is raised (the transaction is aborted either way) and the next execution prepares it afresh.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pg8000.legacy  # type: ignore[import-untyped]  # pg8000 ships no type information
from pg8000.converters import make_params  # type: ignore[import-untyped]
from pg8000.core import (  # type: ignore[import-untyped]
    DESCRIBE,
    IDLE,
    NULL_BYTE,
    PORTAL,
    SYNC_MSG,
    Context,
    _flush,
    _write,
)
from pg8000.exceptions import DatabaseError  # type: ignore[import-untyped]

PREPARED_STATEMENTS = 100
"""Named statements kept per connection (asyncpg's default statement cache holds as many)."""

SEEN_STATEMENTS = 500
"""Statement texts whose executions are counted per connection (SQLAlchemy's compiled cache holds as many)."""

STALE_PREPARED_SQLSTATES = frozenset({"26000", "0A000"})
"""invalid_sql_statement_name (the server lost the statement) and feature_not_supported ("cached plan must not
change result type", after a migration changed a table the statement reads)."""


class _Prepared:
    __slots__ = ("columns", "input_funcs", "name")

    def __init__(self, name: bytes, columns: Any, input_funcs: Any) -> None:
        self.name = name
        self.columns = columns
        self.input_funcs = input_funcs


class PipelinedConnection(pg8000.legacy.Connection):  # type: ignore[misc]
    """``pg8000.legacy.Connection`` (what SQLAlchemy's pg8000 dialect uses) with one round trip per statement and
    statements run ``prepare_threshold`` times prepared (``None``: never)."""

    def __init__(self, *args: Any, prepare_threshold: int | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.prepare_threshold = prepare_threshold
        self._seen: OrderedDict[tuple[str, tuple[int, ...]], int] = OrderedDict()
        self._prepared: OrderedDict[tuple[str, tuple[int, ...]], _Prepared] = OrderedDict()

    @property
    def prepared_count(self) -> int:
        """How many named statements this connection holds on the server."""
        return len(self._prepared)

    def execute_unnamed(self, statement: str, vals: Any = (), oids: Any = (), stream: Any = None) -> Any:
        if stream is not None:  # COPY keeps pg8000's own exchange
            return super().execute_unnamed(statement, vals=vals, oids=oids, stream=stream)
        key = (statement, tuple(oids or ()))
        prepared = self._prepared.get(key)
        if prepared is not None:
            self._prepared.move_to_end(key)
            return self._execute_prepared(key, prepared, vals, oids)
        if vals and self._due_for_preparing(key):
            return self._prepare_and_execute(key, vals, oids)
        context = Context(statement)
        self._parse_bind_execute(NULL_BYTE, context, vals, oids)
        return context

    def _parse_bind_execute(self, name: bytes, context: Any, vals: Any, oids: Any) -> None:
        """Parse ``context``'s statement (under ``name``; empty: unnamed), bind ``vals``, describe and execute the
        portal: one write, one wait for the answers."""
        self.send_PARSE(name, context.statement, oids)
        self.send_BIND(name, make_params(self.py_types, vals))
        self._send_message(DESCRIBE, PORTAL + NULL_BYTE)
        self.send_EXECUTE()
        _write(self._sock, SYNC_MSG)
        _flush(self._sock)
        self.handle_messages(context)

    def _due_for_preparing(self, key: tuple[str, tuple[int, ...]]) -> bool:
        if self.prepare_threshold is None:
            return False
        count = self._seen.pop(key, 0) + 1
        if count >= self.prepare_threshold:
            return True
        self._seen[key] = count
        if len(self._seen) > SEEN_STATEMENTS:
            self._seen.popitem(last=False)
        return False

    def _prepare_and_execute(self, key: tuple[str, tuple[int, ...]], vals: Any, oids: Any) -> Any:
        """Parse the statement under a new name and execute it, in one round trip (once per connection); the portal's
        description is what later executions decode with. A statement the server does not parse is not kept; one
        it parses is kept even when its execution fails (the server keeps it: its name is taken)."""
        if len(self._prepared) >= PREPARED_STATEMENTS:
            _, evicted = self._prepared.popitem(last=False)
            self.close_prepared_statement(evicted.name)
        name = self._new_statement_name()
        context = _PreparingContext(key[0])
        try:
            self._parse_bind_execute(name, context, vals, oids)
        finally:
            if context.parsed:
                self._prepared[key] = _Prepared(name, context.columns, context.input_funcs)
            else:
                self._statement_nums.discard(name)
        return context

    def _new_statement_name(self) -> bytes:
        """A statement name this connection has not used (pg8000's own scheme, so its ``prepare`` never clashes)."""
        number = len(self._statement_nums)
        while (name := f"pg8000_statement_{number}\0".encode("ascii")) in self._statement_nums:
            number += 1
        self._statement_nums.add(name)
        return name

    def handle_PARSE_COMPLETE(self, data: bytes, context: Any) -> None:
        if isinstance(context, _PreparingContext):
            context.parsed = True

    def _execute_prepared(self, key: tuple[str, tuple[int, ...]], prepared: _Prepared, vals: Any, oids: Any) -> Any:
        try:
            return self.execute_named(
                prepared.name, make_params(self.py_types, vals), prepared.columns, prepared.input_funcs, key[0]
            )
        except DatabaseError as exc:
            if _sqlstate(exc) not in STALE_PREPARED_SQLSTATES:
                raise
            self._prepared.pop(key, None)
            if self._transaction_status != IDLE:
                raise
            return self.execute_unnamed(key[0], vals=vals, oids=oids)


class _PreparingContext(Context):  # type: ignore[misc]
    """An exchange that names its statement: records whether the server parsed it."""

    def __init__(self, statement: str) -> None:
        super().__init__(statement)
        self.parsed = False


def _sqlstate(exc: DatabaseError) -> str:
    fields = exc.args[0] if exc.args else None
    return str(fields.get("C", "")) if isinstance(fields, dict) else ""
