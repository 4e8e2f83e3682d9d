"""An upload is masked the same whether its body starts with a UTF-8 byte order mark or not (the one-pass scan reads
the body's own bytes when they are the text's, and the text's encoding when a mark comes first)."""

from __future__ import annotations

import codecs
import json
from collections.abc import Sequence

from session_scoring.configuration.criteria import TraceImportSection
from session_scoring.masking import build_masker
from session_scoring.repositories.uploads import NewUpload
from session_scoring.services.imports import ImportService
from tests.support.long_session import long_session_document
from tests.support.planted_secrets import planted_secrets, planted_text


class _Kept:
    def __init__(self) -> None:
        self.uploads: list[NewUpload] = []

    def add_all(self, uploads: Sequence[NewUpload]) -> None:
        self.uploads.extend(uploads)


def test_an_upload_with_and_without_a_byte_order_mark_is_masked_alike() -> None:
    document = long_session_document("bom", tool_calls=6)
    call = next(s["tool_call"] for s in document["stages"][0]["steps"] if s["kind"] == "tool_call")
    call["result"] = 'näive ünïcode \\ "quoted" ' + planted_text(planted_secrets())
    body = json.dumps(document, ensure_ascii=False).encode()
    store = _Kept()
    service = ImportService(store, TraceImportSection(), build_masker())

    service.import_session(body, "plain.json", "application/json", "alice")
    service.import_session(codecs.BOM_UTF8 + body, "marked.json", "application/json", "alice")

    plain, marked = store.uploads
    assert plain.document == marked.document
    assert plain.session.masked_values == marked.session.masked_values
    assert sum(plain.session.masked_values.values()) >= len(planted_secrets())
    assert all(secret.value not in plain.document for secret in planted_secrets())
