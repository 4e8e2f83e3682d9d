"""Run checkov on template.yaml and fail on any finding that checkov-skips.yaml does not list with its reason.

checkov's own ``--skip-check`` skips a check for every resource, so a new resource of the same kind would never be
flagged; this gate matches findings by (check, resource) instead. It also fails on an entry that matches no finding
any more, so the list (and the table in docs/deployment.md) cannot keep a reason for something already fixed.
``make template-lint`` runs it with the checkov of ``.tools/checkov`` (pinned in requirements-checkov.txt). checkov
downloads nothing here (``--skip-download``, no update check): the run needs no network.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = REPO_ROOT / "template.yaml"
SKIP_FILE = REPO_ROOT / "checkov-skips.yaml"
CHECKOV_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class Finding:
    check: str
    resource: str  # the template's logical id
    title: str = ""


@dataclass(frozen=True)
class Verdict:
    passed: int
    failed: list[Finding]
    unlisted: list[Finding]  # failed and not in the skip file: each fails the build
    stale: list[tuple[str, str]]  # (check, resource) listed but not reported: each fails the build


def load_skips(path: Path = SKIP_FILE) -> list[dict[str, Any]]:
    """The entries of the skip file: each has ``check``, ``title``, ``resources`` and ``reason``."""
    skips: list[dict[str, Any]] = yaml.safe_load(path.read_text())["skips"]
    return skips


def findings(report: dict[str, Any] | list[dict[str, Any]]) -> tuple[int, list[Finding]]:
    """The passed count and the failed checks of checkov's JSON report (one framework, or a list of them)."""
    reports = report if isinstance(report, list) else [report]
    passed, failed = 0, []
    for one in reports:
        passed += int(one["summary"]["passed"])
        for result in one["results"]["failed_checks"]:
            # checkov names a resource TYPE.LogicalId, e.g. "AWS::SQS::Queue.ScoringQueue".
            logical_id = str(result["resource"]).split(".", 1)[1]
            failed.append(Finding(str(result["check_id"]), logical_id, str(result.get("check_name", ""))))
    return passed, failed


def judge(report: dict[str, Any] | list[dict[str, Any]], skips: list[dict[str, Any]]) -> Verdict:
    passed, failed = findings(report)
    listed = {(skip["check"], resource) for skip in skips for resource in skip["resources"]}
    reported = {(f.check, f.resource) for f in failed}
    unlisted = [f for f in failed if (f.check, f.resource) not in listed]
    return Verdict(passed, failed, unlisted, sorted(listed - reported))


def run_checkov(checkov: str, template: Path = TEMPLATE) -> dict[str, Any] | list[dict[str, Any]]:
    env = {**os.environ, "CKV_SKIP_PACKAGE_UPDATE_CHECK": "true", "BC_SKIP_MAPPING": "TRUE"}
    command = [checkov, "--file", str(template), "--framework", "cloudformation", "--skip-download"]
    command += ["--output", "json", "--soft-fail"]  # failures are judged here; an exit code then means a crash
    result = subprocess.run(  # noqa: S603 - the checkov executable `make template-lint` installed, fixed arguments
        command, capture_output=True, text=True, env=env, timeout=CHECKOV_TIMEOUT_SECONDS, check=False
    )
    if result.returncode != 0:
        sys.exit(f"checkov failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    report: dict[str, Any] | list[dict[str, Any]] = json.loads(result.stdout)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkov", default="checkov", help="the checkov executable")
    args = parser.parse_args(argv)

    verdict = judge(run_checkov(args.checkov), load_skips())
    print(
        f"checkov on {TEMPLATE.name}: {verdict.passed} checks passed, {len(verdict.failed)} failed "
        f"({len(verdict.failed) - len(verdict.unlisted)} of them listed in {SKIP_FILE.name})"
    )
    for finding in verdict.unlisted:
        print(
            f"  new finding {finding.check} ({finding.title}) on {finding.resource}: fix it, or add it to "
            f"{SKIP_FILE.name} (and docs/deployment.md) with why it does not apply"
        )
    for check, resource in verdict.stale:
        print(f"  {SKIP_FILE.name} lists {check} for {resource}, which checkov no longer reports: remove it")
    return 1 if verdict.unlisted or verdict.stale else 0


if __name__ == "__main__":
    sys.exit(main())
