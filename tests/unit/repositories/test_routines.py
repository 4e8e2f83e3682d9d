"""A statement becomes a routine only as written: its parameters are the function's arguments, its constants literals
of their type, and a changed statement is a routine of another name; what it cannot carry is refused by name."""

from __future__ import annotations

import pytest
from sqlalchemy import Integer, String, bindparam, column, func, literal, select, table

from session_scoring.repositories.routines import as_routine

ITEMS = table("items", column("id", Integer), column("kind", String), column("note", String))


def test_parameters_become_arguments_and_constants_literals_of_their_type() -> None:
    statement = select(ITEMS.c.id, ITEMS.c.note).where(
        ITEMS.c.kind == bindparam("p_kind", type_=String),
        ITEMS.c.note != "100% done",
        ITEMS.c.id > bindparam("p_after", type_=Integer),
    )

    routine = as_routine("demo", statement, writes=False)

    assert routine.name.startswith("demo_")
    assert f"FUNCTION {routine.name}(p_kind VARCHAR, p_after INTEGER)" in routine.definition
    assert "RETURNS TABLE (id INTEGER, note VARCHAR) LANGUAGE plpgsql STABLE" in routine.definition
    assert "items.kind = p_kind" in routine.definition
    assert "CAST('100% done' AS VARCHAR)" in routine.definition  # the literal's percent sign is not a placeholder
    assert f"FROM {routine.name}(p_kind => :p_kind, p_after => :p_after)" in str(routine.call)


def test_a_changed_statement_is_a_routine_of_another_name() -> None:
    def routine_of(threshold: int) -> str:
        statement = select(ITEMS.c.id).where(
            ITEMS.c.id > literal(threshold, Integer), ITEMS.c.kind == bindparam("p_k", type_=String)
        )
        return as_routine("demo", statement, writes=True).name

    assert routine_of(1) == routine_of(1)
    assert routine_of(1) != routine_of(2)


def test_what_a_routine_cannot_carry_is_refused_by_name() -> None:
    expanding = select(ITEMS.c.id).where(ITEMS.c.kind.in_(["a", "b"]))
    untyped = select(ITEMS.c.id).where(func.length(bindparam("p_note")) > 1)
    too_many = select(ITEMS.c.id).where(*[ITEMS.c.id != bindparam(f"p_{i}", type_=Integer) for i in range(101)])

    with pytest.raises(ValueError, match="expand at execution"):
        as_routine("demo", expanding, writes=False)
    with pytest.raises(ValueError, match="'p_note' has no SQL type"):
        as_routine("demo", untyped, writes=False)
    with pytest.raises(ValueError, match="101 parameters"):
        as_routine("demo", too_many, writes=False)
