"""The session view of an upload: its first page answered as the API's JSON, and a kept page answered again as the
same bytes, with no second read of the store and no second serialisation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from session_scoring.models.api import SessionDetail, SessionStepsPage
from session_scoring.models.session import Session
from session_scoring.services.sessions import SessionViewService
from session_scoring.sources.base import SessionSource


@dataclass
class Step:
    stage_index: int
    step_index: int
    step: dict[str, Any]


@dataclass
class CountingUploads:
    """One upload of ``steps`` tool calls, counting what the view reads of it."""

    steps: int
    reads: list[str] = field(default_factory=list)

    def owns(self, session_id: str) -> bool:
        return session_id.startswith("upload:")

    def session_head(self, session_id: str) -> tuple[Session, int]:
        self.reads.append("head")
        session = Session.model_validate(
            {"session_id": session_id, "status": "completed", "stages": [{"name": "investigate", "steps": []}]}
        )
        return session, self.steps

    def step_page(self, session_id: str, offset: int, limit: int, max_bytes: int) -> list[Step]:
        self.reads.append(f"steps {offset}")
        return [
            Step(0, i, {"kind": "tool_call", "tool_call": {"name": f"t{i}", "server": "k8s", "result": "ok"}})
            for i in range(offset, min(self.steps, offset + limit))
        ]


class NoSource(SessionSource):
    def get_session(self, session_id: str) -> Session:
        raise AssertionError("an upload is read by pages, never whole")


def test_a_kept_page_is_answered_again_without_reading_or_serialising_it_again() -> None:
    uploads = CountingUploads(steps=700)
    view = SessionViewService(NoSource(), uploads)

    first = view.session_detail_json("upload:big")
    again = view.session_detail_json("upload:big")
    page = view.session_steps_json("upload:big", 500)

    detail = SessionDetail.model_validate_json(first)
    assert (detail.steps_total, detail.steps_shown, detail.next_steps_offset) == (700, 500, 500)
    assert [step.tool_call.name for step in detail.stages[0].steps[:2] if step.tool_call] == ["t0", "t1"]
    assert again is first  # the kept bytes themselves: nothing read, nothing serialised
    assert uploads.reads == ["head", "steps 0", "head", "steps 500"]
    steps = SessionStepsPage.model_validate_json(page)
    assert (steps.offset, len(steps.steps), steps.next_offset) == (500, 200, None)
