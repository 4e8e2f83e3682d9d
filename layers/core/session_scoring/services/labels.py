"""Human labels: store a labeller's label (a new revision each time), read a session's labels, import a CSV; and the
session's reference root cause (set, withdrawn, read: a new revision each time, whoever sets it).

An import validates every row first and reports every bad row (its line, the column, what is wrong); only a file
with no bad row is stored, in one transaction, so nothing is ever half-imported.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pydantic import ValidationError

from session_scoring.errors import InvalidRequestError
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
from session_scoring.models.scores import DIMENSIONS

CSV_COLUMNS = ("session_id", "labeller", "total_score", *DIMENSIONS, "band", "notes")
REQUIRED_COLUMNS = ("session_id", "total_score")
MAX_ERRORS_SHOWN = 50


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

    def put_label(self, session_id: str, labeller: str, request: LabelRequest) -> SessionLabel:
        """Store ``labeller``'s label of the session: their first, or a revision of their earlier one. A session
        that exists nowhere (no attempt, no source has it) is a SessionNotFoundError: nothing is stored."""
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
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        unknown = [c for c in header if c not in CSV_COLUMNS]
        checks = (("lacks", missing), ("has unknown column(s)", unknown))
        wrong = [f"{what} {', '.join(names)}" for what, names in checks if names]
        if wrong:
            raise InvalidRequestError(
                f"the CSV header {'; '.join(wrong)}; the columns are {', '.join(CSV_COLUMNS)} "
                "(session_id and total_score required)"
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

    @staticmethod
    def _row(row: dict[str, str], default_labeller: str | None) -> NewLabel:
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
        dimensions = {d: number(d) for d in DIMENSIONS}
        given = {d: v for d, v in dimensions.items() if v is not None}
        if given and len(given) != len(DIMENSIONS):
            absent = [d for d in DIMENSIONS if d not in given]
            raise ValueError(f"give all four dimensions or none; {', '.join(absent)} empty")
        request = LabelRequest.model_validate(
            {
                "total_score": total,
                "score_breakdown": given or None,
                "band": row.get("band") or None,
                "notes": row.get("notes") or None,
            }
        )
        return NewLabel(session_id, labeller, request, "import")

    def import_labels(self, labels: list[NewLabel], progress: Callable[[int], None]) -> LabelImportResult:
        """Store parsed labels in one transaction; rows of one labeller and session become successive revisions."""
        imported = self.repository.add_all(labels, progress)
        return LabelImportResult(
            imported=imported,
            sessions=len({label.session_id for label in labels}),
            labellers=len({label.labeller for label in labels}),
        )
