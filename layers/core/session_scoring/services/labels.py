"""Human labels: store a labeller's label (a new revision each time), read a session's labels, import a CSV; and the
session's reference root cause (set, withdrawn, read: a new revision each time, whoever sets it).

A label's breakdown follows the rubric of the criteria in force (``Rubric``, the criteria file): exactly its
dimension keys, each 0 to its own maximum, adding up to the total under a ``sum`` rubric (a ``holistic`` rubric's
total is the human's own). The request model checks the breakdown's shape; this service checks it against the
rubric (:func:`breakdown_problem`), through the API (422) and the CSV import alike.

An import validates every row first and reports every bad row (its line, the column, what is wrong); only a file
with no bad row is stored, in one transaction, so nothing is ever half-imported. Its columns are the rubric's
(:func:`csv_columns`): session_id, labeller, total_score, one per dimension key, band, notes.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import ValidationError

from session_scoring.configuration.criteria import default_rubric
from session_scoring.errors import InvalidParametersError, InvalidRequestError
from session_scoring.models.ids import is_session_id
from session_scoring.models.quality import (
    LabelImportResult,
    LabelQueue,
    LabelRequest,
    NewLabel,
    ReferenceRequest,
    SessionLabel,
    SessionLabels,
    SessionReference,
)
from session_scoring.models.reference import clean_reference_text
from session_scoring.models.rubric import Rubric, number_word

REQUIRED_COLUMNS = ("session_id", "total_score")
MAX_ERRORS_SHOWN = 50


def csv_columns(rubric: Rubric) -> tuple[str, ...]:
    """The label CSV's columns under ``rubric``: one per dimension key between the total and the band."""
    return ("session_id", "labeller", "total_score", *rubric.keys, "band", "notes")


def _rubric_dimensions(rubric: Rubric) -> str:
    return ", ".join(f"{key} (0-{maximum})" for key, maximum in rubric.maxima.items())


def breakdown_problem(rubric: Rubric, total_score: int, breakdown: dict[str, int] | None) -> str | None:
    """What is wrong with a label's ``breakdown`` under ``rubric`` (None: nothing, or no breakdown), by the rubric's
    own rules (:meth:`Rubric.breakdown_fault`), said for the person who labelled."""
    fault = None if breakdown is None else rubric.breakdown_fault(breakdown, total_score)
    if breakdown is None or fault is None:
        return None
    if fault.rule == "dimensions":
        return (
            f"score_breakdown {fault.keys_text()}; the rubric '{rubric.name}' has exactly the dimensions "
            f"{_rubric_dimensions(rubric)} (or leave score_breakdown out)"
        )
    if fault.rule == "maximum":
        return (
            f"score_breakdown.{fault.key} is {fault.points}; {fault.key} is worth 0-{fault.maximum} points in the "
            f"rubric '{rubric.name}'"
        )
    points = sum(breakdown.values())
    added = (
        f"{points}"
        if rubric.max_sum == 100
        else f"{points} of {rubric.max_sum}, {fault.expected} scaled to 0-100 (rubric '{rubric.name}')"
    )
    return (
        f"the score_breakdown dimensions add up to {added} but total_score is {total_score}; they must be "
        "equal (or leave score_breakdown out)"
    )


def _problems(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'row'}: {err['msg'].removeprefix('Value error, ')}"
        for err in exc.errors()
    )


class LabelStore(Protocol):
    """Human labels (``repositories.labels``)."""

    def add(self, label: NewLabel) -> SessionLabel: ...
    def add_all(self, labels: Sequence[NewLabel], progress: Callable[[int], None]) -> int: ...
    def for_session(self, session_id: str) -> list[SessionLabel]: ...
    def add_reference(
        self, session_id: str, set_by: str, root_cause: str | None, remediation: str | None
    ) -> SessionReference: ...
    def reference_history(self, session_id: str) -> list[SessionReference]: ...
    def next_unlabelled(self, criteria_hash: str, labeller: str, after: str | None) -> LabelQueue: ...


@dataclass(eq=False)
class LabelService:
    """``check_known`` raises SessionNotFoundError for a session that has no attempt and that no source has
    (``ScoringService.check_known``, the score request's own check)."""

    repository: LabelStore
    check_known: Callable[[str], None]
    rubric: Rubric = field(default_factory=default_rubric)
    """The rubric of the criteria in force: a label's breakdown and the CSV's dimension columns follow it."""

    def put_label(self, session_id: str, labeller: str, request: LabelRequest) -> SessionLabel:
        """Store ``labeller``'s label of the session: their first, or a revision of their earlier one. A breakdown
        that does not fit the rubric is an InvalidParametersError (422) naming what is wrong; a session that exists
        nowhere (no attempt, no source has it) is a SessionNotFoundError. Either way nothing is stored."""
        problem = breakdown_problem(self.rubric, request.total_score, request.score_breakdown)
        if problem is not None:
            raise InvalidParametersError(problem)
        self.check_known(session_id)
        return self.repository.add(NewLabel(session_id, labeller, request, "api"))

    def put_reference(self, session_id: str, set_by: str, request: ReferenceRequest) -> SessionReference:
        """Store ``request`` as the session's next reference revision, set by ``set_by``; a session that exists
        nowhere is a SessionNotFoundError and nothing is stored."""
        self.check_known(session_id)
        root_cause = request.reference_root_cause.strip()  # never blank: the request model refuses it
        remediation = clean_reference_text(request.reference_remediation)
        return self.repository.add_reference(session_id, set_by, root_cause, remediation)

    def withdraw_reference(self, session_id: str, set_by: str) -> SessionLabels:
        """Withdraw the session's reference (a revision without a root cause, kept like every other): later scores
        are judged against the session's own reference, if its document has one, else against none. Nothing is
        stored when the session has no reference set through this API; the labels are answered either way."""
        history = self.repository.reference_history(session_id)
        if history and history[0].reference_root_cause is not None:
            self.repository.add_reference(session_id, set_by, None, None)
        return self.labels(session_id)

    def labels(self, session_id: str) -> SessionLabels:
        history = self.repository.for_session(session_id)
        current = {label.labeller: label for label in sorted(history, key=lambda label: label.revision)}
        references = self.repository.reference_history(session_id)
        reference = references[0] if references and references[0].reference_root_cause is not None else None
        return SessionLabels(
            session_id=session_id,
            current=sorted(current.values(), key=lambda label: label.labeller),
            history=history,
            reference=reference,
            reference_history=references,
        )

    def next_to_label(self, labeller: str, criteria_hash: str, after: str | None = None) -> LabelQueue:
        """The labeller's queue: the next session scored under ``criteria_hash`` they have not labelled, in
        session-id order after ``after`` (a session they skipped, or just labelled), and how many are left."""
        return self.repository.next_unlabelled(criteria_hash, labeller, after)

    def parse_csv(self, text: str, default_labeller: str | None = None) -> list[NewLabel]:
        """Every row of the CSV as a label, or an InvalidRequestError listing every bad row."""
        reader = csv.DictReader(io.StringIO(text))
        header = [name.strip() for name in reader.fieldnames or []]
        columns = csv_columns(self.rubric)
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        unknown = [f"{c} (line 1, column {i})" for i, c in enumerate(header, start=1) if c not in columns]
        checks = (("lacks", missing), ("has unknown column(s)", unknown))
        wrong = [f"{what} {', '.join(names)}" for what, names in checks if names]
        if wrong:
            raise InvalidRequestError(
                f"the CSV header {'; '.join(wrong)}; the columns are {', '.join(columns)} "
                f"(session_id and total_score required; the dimension columns are those of the rubric "
                f"'{self.rubric.name}')"
            )
        labels: list[NewLabel] = []
        errors: list[str] = []
        for line, raw in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
            try:
                labels.append(self._row(row, default_labeller))
            except (ValueError, ValidationError) as exc:
                why = _problems(exc) if isinstance(exc, ValidationError) else str(exc)
                errors.append(f"line {line} (session {row.get('session_id') or '?'}): {why}")
        if errors:
            shown = errors[:MAX_ERRORS_SHOWN]
            more = len(errors) - len(shown)
            raise InvalidRequestError(
                f"{len(errors)} bad row(s), nothing imported; fix them and import the file again:\n  "
                + "\n  ".join(shown)
                + (f"\n  ... and {more} more" if more else "")
            )
        if not labels:
            raise InvalidRequestError("the CSV has a header but no rows: nothing to import")
        return labels

    def _row(self, row: dict[str, str], default_labeller: str | None) -> NewLabel:
        session_id = row.get("session_id", "")
        if not is_session_id(session_id):
            raise ValueError(f"session_id {session_id!r} is not a session id (letters, digits, '.', '_', ':', '-')")
        labeller = row.get("labeller") or default_labeller
        if not labeller:
            raise ValueError("no labeller: fill the labeller column or pass --labeller")
        if len(labeller) > 255:
            raise ValueError("labeller is longer than 255 characters")

        def number(name: str) -> int | None:
            value = row.get(name, "")
            if value == "":
                return None
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"{name}: {value!r} is not a whole number") from None

        total = number("total_score")
        if total is None:
            raise ValueError("total_score is empty")
        keys = self.rubric.keys
        dimensions = {key: number(key) for key in keys}
        given = {key: v for key, v in dimensions.items() if v is not None}
        if given and len(given) != len(keys):
            absent = [key for key in keys if key not in given]
            raise ValueError(f"give all {number_word(len(keys))} dimensions or none; {', '.join(absent)} empty")
        request = LabelRequest.model_validate(
            {
                "total_score": total,
                "score_breakdown": given or None,
                "band": row.get("band") or None,
                "notes": row.get("notes") or None,
            }
        )
        problem = breakdown_problem(self.rubric, request.total_score, request.score_breakdown)
        if problem is not None:
            raise ValueError(problem)
        return NewLabel(session_id, labeller, request, "import")

    def import_labels(self, labels: list[NewLabel], progress: Callable[[int], None]) -> LabelImportResult:
        """Store parsed labels in one transaction; rows of one labeller and session become successive revisions."""
        imported = self.repository.add_all(labels, progress)
        return LabelImportResult(
            imported=imported,
            sessions=len({label.session_id for label in labels}),
            labellers=len({label.labeller for label in labels}),
        )
