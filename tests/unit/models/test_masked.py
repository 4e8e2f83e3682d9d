"""The masking step over a whole session, a verdict's texts and a reference."""

from __future__ import annotations

from session_scoring.masking import build_masker, default_masker
from session_scoring.models.masked import from_document, mask_reference, mask_session
from session_scoring.models.reference import Reference
from session_scoring.models.session import Session, Stage, Step, ToolCall
from tests.support.planted_secrets import planted_secrets

AWS = next(s for s in planted_secrets() if s.kind == "aws-secret-access-key")


def _session() -> Session:
    call = ToolCall(name="env_get", arguments={"password": "hunter22"}, result=AWS.text)
    return Session(
        session_id="s-1",
        status="completed",
        alert={"note": AWS.text},
        stages=[Stage(name="investigate", steps=[Step(kind="tool_call", tool_call=call)])],
        final_analysis="rotated the key",
    )


def test_a_session_is_masked_everywhere_and_counted_and_its_id_is_kept() -> None:
    masked = mask_session(_session(), default_masker())

    assert AWS.value not in masked.model_dump_json()
    assert "hunter22" not in masked.model_dump_json()
    assert masked.session_id == "s-1"
    assert masked.masked_values == {"aws": 2, "password-assignment": 1}


def test_masking_a_masked_session_again_keeps_its_count_and_a_clean_one_is_the_same_object() -> None:
    once = mask_session(_session(), default_masker())
    clean = Session(session_id="s-2", status="completed", final_analysis="all good")

    assert mask_session(once, default_masker()) is once
    assert mask_session(clean, default_masker()) is clean
    assert mask_session(_session(), build_masker(enabled=False)).masked_values == {}


def test_a_count_claimed_by_a_document_is_not_the_services() -> None:
    claimed = Session(session_id="s-3", status="completed", masked_values={"aws": 9})

    assert from_document(claimed).masked_values == {}


def test_a_reference_typed_with_a_secret_is_masked() -> None:
    reference = Reference(root_cause=f"the leaked {AWS.text}", remediation=None, source="label")

    masked = mask_reference(reference, default_masker())

    assert masked is not None
    assert AWS.value not in masked.root_cause
    assert masked.source == "label"
