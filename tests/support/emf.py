"""Read the CloudWatch embedded-metric-format lines Powertools prints, as CloudWatch would turn them into metrics."""

from __future__ import annotations

import json

Emitted = dict[tuple[str, frozenset[tuple[str, str]]], list[float]]
"""Metric values keyed by (metric name, its dimensions as (name, value) pairs)."""

NAMESPACE = "SessionScoring"
SERVICE = ("service", "session-scoring")


def emf(stdout: str) -> Emitted:
    """Every metric value printed in ``stdout`` (log lines are skipped); every metric must be in our namespace."""
    found: Emitted = {}
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        document = json.loads(line)
        if "_aws" not in document:
            continue
        for directive in document["_aws"]["CloudWatchMetrics"]:
            assert directive["Namespace"] == NAMESPACE
            [dimension_names] = directive["Dimensions"]
            dimensions = frozenset((name, str(document[name])) for name in dimension_names)
            for metric in directive["Metrics"]:
                values = document[metric["Name"]]
                found.setdefault((metric["Name"], dimensions), []).extend(
                    values if isinstance(values, list) else [values]
                )
    return found


def named(emitted: Emitted, name: str, **dimensions: str) -> list[float]:
    """The values of metric ``name`` with the service dimension and exactly ``dimensions`` besides."""
    return emitted.get((name, frozenset({SERVICE, *dimensions.items()})), [])
