"""What the campaign counts: requests, answers that are server errors, wrong answers and errors that stored rows;
and each distinct failure (kind, route, input, status) with how often it happened and one example.

The schemathesis engine runs in a process of its own and hands its tally back as JSON (:meth:`Tally.to_json`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SERVER_ERROR = "5xx"
"""A 5xx status, or no answer at all (connection dropped, timed out)."""
WRONG_ANSWER = "wrong answer"
"""An answer that is not for what was asked: a canary read answered for another subject or with the wrong status,
a hostile request answered with a status other than the one that is right for it (a coerced value accepted, a 405
without ``Allow``, a 4xx that is not the service's JSON error), or a schemathesis check failure."""
STORED_ON_ERROR = "stored on error"
"""A request answered 4xx/5xx that left a row behind (an attempt, a run, a label, an upload, an export job)."""
CONTRACT_NOTE = "contract note"
"""A schemathesis finding that is not counted: a schema-valid request refused with the service's 4xx JSON error
(the OpenAPI document cannot state the rules across fields that the models enforce)."""

KINDS = (SERVER_ERROR, WRONG_ANSWER, STORED_ON_ERROR, CONTRACT_NOTE)


@dataclass
class Failure:
    kind: str
    route: str
    """Method and route template, e.g. ``GET /api/v1/scoring/scores``."""
    input: str
    """What was sent that matters, e.g. ``NUL in query agent`` or a schemathesis check's title."""
    status: str
    """The status answered (``none`` when there was no answer)."""
    count: int = 0
    example: str = ""


@dataclass
class Tally:
    requests: int = 0
    by_source: dict[str, int] = field(default_factory=dict)
    failures: dict[tuple[str, str, str, str], Failure] = field(default_factory=dict)

    def sent(self, source: str, n: int = 1) -> None:
        """Count ``n`` requests sent by ``source`` (``schemathesis``, ``corpus``, ``canary``, ``scenario``)."""
        self.requests += n
        self.by_source[source] = self.by_source.get(source, 0) + n

    def fail(self, kind: str, route: str, input: str, status: int | str | None, example: str = "") -> None:
        status_text = "none" if status is None else str(status)
        key = (kind, route, input[:120], status_text)
        failure = self.failures.get(key)
        if failure is None:
            failure = self.failures[key] = Failure(
                kind, route, input[:120], status_text, example=" ".join(example.split())[:400]
            )
        failure.count += 1

    def count(self, kind: str) -> int:
        return sum(f.count for f in self.failures.values() if f.kind == kind)

    def distinct(self, kind: str) -> list[Failure]:
        return sorted((f for f in self.failures.values() if f.kind == kind), key=lambda f: (f.route, f.input))

    def summary_line(self) -> str:
        return (
            f"fuzz: requests {self.requests}, 5xx {self.count(SERVER_ERROR)}, "
            f"wrong answers {self.count(WRONG_ANSWER)}, stored on error {self.count(STORED_ON_ERROR)}"
        )

    def passed(self) -> bool:
        return all(self.count(kind) == 0 for kind in (SERVER_ERROR, WRONG_ANSWER, STORED_ON_ERROR))

    def merge(self, other: Tally) -> None:
        self.requests += other.requests
        for source, n in other.by_source.items():
            self.by_source[source] = self.by_source.get(source, 0) + n
        for key, failure in other.failures.items():
            mine = self.failures.get(key)
            if mine is None:
                self.failures[key] = Failure(**vars(failure))
            else:
                mine.count += failure.count

    def to_json(self) -> str:
        return json.dumps(
            {
                "requests": self.requests,
                "by_source": self.by_source,
                "failures": [vars(f) for f in self.failures.values()],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Tally:
        data: dict[str, Any] = json.loads(text)
        tally = cls(requests=data["requests"], by_source=dict(data["by_source"]))
        for item in data["failures"]:
            failure = Failure(**item)
            tally.failures[(failure.kind, failure.route, failure.input, failure.status)] = failure
        return tally

    def save(self, path: Path) -> None:
        temporary = path.with_suffix(".tmp")
        temporary.write_text(self.to_json())
        temporary.replace(path)

    def report(self) -> list[str]:
        """The distinct failures by kind, one line per input and status (with the routes it was seen on) and one
        example; the summary line is printed separately. Every failure is in :meth:`to_json`."""
        lines: list[str] = []
        for kind in KINDS:
            failures = self.distinct(kind)
            if not failures:
                continue
            if kind == CONTRACT_NOTE:
                routes = len({f.route for f in failures})
                lines.append(
                    f"fuzz: {kind} (not counted): {self.count(kind)} schema-valid request(s) refused with a 4xx on "
                    f"{routes} route(s); the examples are in tally.json"
                )
                continue
            lines.append(f"fuzz: {kind}: {len(failures)} distinct (route, input, status), {self.count(kind)} in all")
            groups: dict[tuple[str, str], list[Failure]] = {}
            for failure in failures:
                groups.setdefault((failure.input, failure.status), []).append(failure)
            for (input, status), group in sorted(groups.items(), key=lambda item: (item[1][0].route, item[0])):
                total = sum(f.count for f in group)
                if len(group) == 1:
                    lines.append(f"  {group[0].route} | {input} | {status} | x{total}")
                else:
                    routes = ", ".join(f.route for f in group[:3]) + (
                        f" and {len(group) - 3} more" if len(group) > 3 else ""
                    )
                    lines.append(f"  {len(group)} routes ({routes}) | {input} | {status} | x{total}")
                lines.append(f"      e.g. {group[0].example}")
        return lines
