"""Which reference root cause a session is judged against, and where it came from.

Precedence: the session's reference set through the labels API (its highest revision; a withdrawal lets the document's
own apply again), then the imported document's (an upload), then the session source's own field. The score records
where it came from (``reference_source``), or that there was none (docs/outcome.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from session_scoring.models.quality import SessionReference
from session_scoring.models.reference import Reference, ReferenceSource, clean_reference_text
from session_scoring.models.session import Session
from session_scoring.repositories.uploads import UPLOAD_SOURCE


class LabelReferences(Protocol):
    """The references set through the labels API (``repositories.labels``)."""

    def current_reference(self, session_id: str) -> SessionReference | None: ...


def resolve_reference(
    session: Session, label_root_cause: str | None = None, label_remediation: str | None = None
) -> Reference | None:
    """The reference ``session`` is judged against: its current label reference (``label_root_cause``, None when none
    is set or it was withdrawn) when there is one, else the session's own (``import`` for an uploaded session,
    ``source`` otherwise), else None."""
    if label_root_cause:
        return Reference(label_root_cause, label_remediation, "label")
    root_cause = clean_reference_text(session.reference_root_cause)
    if root_cause is None:
        return None
    origin: ReferenceSource = "import" if session.source == UPLOAD_SOURCE else "source"
    return Reference(root_cause, clean_reference_text(session.reference_remediation), origin)


@dataclass(eq=False)
class ReferenceResolver:
    """Resolves a session's reference when it is judged (the scorer, the batch poller) or estimated (a run)."""

    labels: LabelReferences

    def for_session(self, session: Session) -> Reference | None:
        record = self.labels.current_reference(session.session_id)
        if record is None:
            return resolve_reference(session)
        return resolve_reference(session, record.reference_root_cause, record.reference_remediation)
