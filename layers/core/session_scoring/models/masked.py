"""The masking step applied to a whole session (``session_scoring.masking``): what every reader gets."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

from session_scoring.masking import Masker, Memo, merge_counts
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.reference import Reference
from session_scoring.models.session import Session

_NOT_MASKED = {"masked_values", "session_id", "format", "source"}
"""Fields that name the session or are the service's own: never text from the trace."""


def mask_session(session: Session, masker: Masker, memo: Memo | None = None) -> Session:
    """``session`` with every secret in its text and data replaced by a marker, and ``masked_values`` counting them
    (added to what an earlier pass counted; masking twice masks nothing more). Unchanged: the same object."""
    if not masker.enabled:
        return session
    counts: Counter[str] = Counter()
    # Masked as JSON text in one pass where it can be (a large session's strings are not walked one by one).
    text = session.model_dump_json(exclude=_NOT_MASKED)
    fast = masker.mask_json(text, counts, memo)
    if fast is None:
        data = session.model_dump(exclude=_NOT_MASKED)
        masked = masker.mask_value(data, counts, memo)
        if masked is data:
            return session
    elif fast is text:
        return session
    else:
        masked = json.loads(fast)
    kept = {name: getattr(session, name) for name in _NOT_MASKED}
    return Session.model_validate({**masked, **kept, "masked_values": merge_counts(session.masked_values, counts)})


def from_document(session: Session) -> Session:
    """A session as a document or a source gave it: a ``masked_values`` it claims is not the service's count."""
    return session.model_copy(update={"masked_values": {}}) if session.masked_values else session


def mask_verdict(verdict: JudgeVerdict, masker: Masker) -> JudgeVerdict:
    """``verdict`` with any secret its texts quote masked (a judge's output is untrusted text too: it is stored,
    exported and written back). Unchanged: the same object."""
    if not masker.enabled:
        return verdict
    data = verdict.output.model_dump()
    masked = masker.mask_value(data)
    if masked is data:
        return verdict
    return verdict.model_copy(update={"output": type(verdict.output).model_validate(masked)})


def mask_reference(reference: Reference | None, masker: Masker) -> Reference | None:
    """A reference with any secret in its texts masked (one set through the labels API is typed by a person)."""
    if reference is None or not masker.enabled:
        return reference
    remediation = None if reference.remediation is None else masker.mask_text(reference.remediation)
    return dataclasses.replace(reference, root_cause=masker.mask_text(reference.root_cause), remediation=remediation)
