"""Every handler of the scorer's package (the queue's and the scheduled functions') wears the same Powertools
decorators, in the same order: Lambda-context logging, metrics with the cold start, tracing. What each of them does
is shown with the sample events (``tests/integration/test_handlers_with_events.py``); here a new handler that leaves
one out, or orders them otherwise, fails by name."""

from __future__ import annotations

import ast
from pathlib import Path

SCORER = Path(__file__).resolve().parents[3] / "functions" / "scorer"

STACK = [
    "logger.inject_lambda_context(clear_state=True)",
    "metrics.log_metrics(capture_cold_start_metric=True)",
    "traced_handler",
]


def handler_decorators(module: Path) -> list[str]:
    [handler] = [
        node
        for node in ast.parse(module.read_text()).body
        if isinstance(node, ast.FunctionDef) and node.name == "handler"
    ]
    return [ast.unparse(decorator) for decorator in handler.decorator_list]


def test_each_scorer_handler_has_the_same_decorator_stack() -> None:
    modules = sorted(path for path in SCORER.glob("*.py") if path.name != "__init__.py")
    assert [path.stem for path in modules] == ["app", "auto_score", "poll_batches", "reap"]
    assert {path.stem: handler_decorators(path) for path in modules} == {path.stem: STACK for path in modules}
