"""A long investigation in the native format: many tool calls with unique names, results and reasoning between them."""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import SESSION_FORMAT


def tool_name(index: int) -> str:
    return f"probe_{index:04d}"


def long_session_document(
    session_id: str, tool_calls: int = 2_400, result_chars: int = 700, reasoning_chars: int = 140
) -> dict[str, Any]:
    """About ``tool_calls * (result_chars + reasoning_chars + 80)`` bytes: 2,400 calls make about 2 MB."""
    steps: list[dict[str, Any]] = []
    for index in range(tool_calls):
        reasoning = f"Step {index}: next I check probe {index}. " + "r" * reasoning_chars
        steps.append({"kind": "reasoning", "text": reasoning})
        line = f"{index:04d} Warning BackOff pod/checkout-api-{index} Back-off restarting failed container\n"
        call: dict[str, Any] = {
            "name": tool_name(index),
            "server": "k8s",
            "arguments": {"namespace": "checkout", "pod": f"checkout-api-{index}"},
            "result": (line * (result_chars // len(line) + 1))[:result_chars],
        }
        if index % 100 == 7:
            call.update(success=False, error=f"forbidden: probe {index} denied by RBAC", result=None)
        steps.append({"kind": "tool_call", "tool_call": call})
    return {
        "format": SESSION_FORMAT,
        "session_id": session_id,
        "status": "completed",
        "alert_type": "PodCrashLooping",
        "alert": {"pod": "checkout-api", "namespace": "checkout"},
        "stages": [{"name": "investigate", "agent": "KubernetesAgent", "steps": steps}],
        "final_analysis": "Root cause: the checkout-api container exceeds its memory limit.",
    }
