"""Invoke a built Lambda handler the way the runtime does, with sample events; run by the runtime's Python.

Usage: python3.12 -S invoke_built.py FUNCTION_NAME HANDLER EVENT_FILE...  (PYTHONPATH: the built function and its
layers; HANDLER as in the template, e.g. functions.api.app.handler)

Standalone on purpose: it imports nothing from the repository, only the built artifact on PYTHONPATH, so what it
proves is what `sam build` produced. Prints one JSON line per event, then one with the cold initialisation time.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
import uuid
from pathlib import Path


class Context:
    """The parts of the Lambda context the handlers read."""

    def __init__(self, function_name: str, budget_seconds: float) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 1024
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "smoke"
        self._deadline = time.monotonic() + budget_seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main() -> int:
    function_name, handler_name, event_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    module_name, function_attribute = handler_name.rsplit(".", 1)
    started = time.perf_counter()
    module = importlib.import_module(module_name)  # what the runtime does with the Handler setting
    handler = getattr(module, function_attribute)
    init_ms = (time.perf_counter() - started) * 1000
    for path in event_files:
        event = json.loads(Path(path).read_text())
        try:
            result = handler(event, Context(function_name, budget_seconds=120))
            print(json.dumps({"event": Path(path).name, "result": result}), flush=True)
        except Exception as exc:
            print(json.dumps({"event": Path(path).name, "error": f"{type(exc).__name__}: {exc}"}), flush=True)
    print(
        json.dumps(
            {
                "init_ms": round(init_ms, 1),
                "python": sys.version.split()[0],
                "anthropic_loaded": "anthropic" in sys.modules,
                "anthropic_importable": importlib.util.find_spec("anthropic") is not None,
                "judge_sdks_importable": [n for n in ("anthropic", "openai", "google.genai") if _importable(n)],
            }
        ),
        flush=True,
    )
    return 0


def _importable(name: str) -> bool:
    """Whether ``name`` can be imported (a dotted name whose parent package is absent cannot)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


if __name__ == "__main__":
    sys.exit(main())
