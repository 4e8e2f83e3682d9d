"""Which reference a session is judged against, and where it came from (labels API, imported document, source)."""

from __future__ import annotations

from datetime import UTC, datetime

from session_scoring.models.quality import SessionReference
from session_scoring.models.reference import Reference
from session_scoring.models.session import Session
from session_scoring.services.references import ReferenceResolver, resolve_reference

AT = datetime(2026, 11, 27, tzinfo=UTC)


def session(source: str, root_cause: str | None = None, remediation: str | None = None) -> Session:
    return Session(
        session_id="s-1",
        status="completed",
        source=source,
        reference_root_cause=root_cause,
        reference_remediation=remediation,
    )


def label(root_cause: str | None, remediation: str | None = None) -> SessionReference:
    return SessionReference.model_validate(
        {
            "session_id": "s-1",
            "revision": 2,
            "root_cause": root_cause,
            "remediation": remediation,
            "set_by": "alice",
            "created_at": AT,
        }
    )


def test_the_label_wins_then_the_imported_document_then_the_source() -> None:
    uploaded = session("upload", "  the document's cause \n", "  ")
    filed = session("file", "the file's cause", "roll back")

    assert resolve_reference(uploaded, "the label's cause", "fix it") == Reference(
        "the label's cause", "fix it", "label"
    )
    assert resolve_reference(uploaded) == Reference("the document's cause", None, "import")
    assert resolve_reference(filed) == Reference("the file's cause", "roll back", "source")
    assert resolve_reference(session("tarsy")) is None


def test_a_withdrawn_label_lets_the_documents_own_reference_apply_again() -> None:
    uploaded = session("upload", "the document's cause")
    withdrawn = ReferenceResolver(_Labels(label(None)))

    assert withdrawn.for_session(uploaded) == Reference("the document's cause", None, "import")
    assert withdrawn.for_session(session("upload", "   ")) is None
    assert ReferenceResolver(_Labels(None)).for_session(session("file")) is None


class _Labels:
    """The labels port (``services.references.LabelReferences``); mypy checks it."""

    def __init__(self, record: SessionReference | None) -> None:
        self.record = record
        self.asked: list[str] = []

    def current_reference(self, session_id: str) -> SessionReference | None:
        self.asked.append(session_id)
        return self.record


def test_the_resolver_reads_the_sessions_label_reference() -> None:
    labels = _Labels(label("the label's cause"))

    resolved = ReferenceResolver(labels).for_session(session("file", "the file's cause"))

    assert resolved == Reference("the label's cause", None, "label")
    assert labels.asked == ["s-1"]
