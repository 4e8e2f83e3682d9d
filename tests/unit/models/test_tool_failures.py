"""Failures a tool's output reports in its text: recognised at the start of the output, never inside a log."""

from __future__ import annotations

from typing import Any

import pytest

from session_scoring.models.tool_failures import failure_in_output


@pytest.mark.parametrize(
    ("output", "evidence"),
    [
        ("Process exited with code 1\nOutput:\nboom", "Process exited with code 1"),
        ("Exit code: 2\nWall time: 0.1 seconds\nOutput:\n", "Exit code: 2"),
        ('error: the server doesn\'t have a resource type "certificate"', "error: the server doesn't have"),
        ('Error: secrets "db" is forbidden', "Error: secrets"),
        ("ERROR 1045 (28000): Access denied for user 'ro'", "ERROR 1045 (28000): Access denied"),
        ("Traceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'pod'", "KeyError: 'pod' (a Python"),
        ("bash: line 1: stern: command not found", "stern: command not found"),
        ("zsh: command not found: kubectl", "command not found: kubectl"),
        ('Error from server (NotFound): pods "web-1" not found', "Error from server (NotFound)"),
        ("HTTP/1.1 503 Service Unavailable\n\nno healthy upstream", "HTTP/1.1 503"),
        ("HTTP/2 404\ncontent-type: text/html", "HTTP/2 404"),
        ("curl: (28) Connection timed out after 5001 milliseconds", "curl: (28)"),
        ("request timed out after 30s", "request timed out"),
        ("\n\n  Error: leading blank lines do not hide it", "Error: leading blank lines"),
        ({"error": "not found", "code": 404}, "error: not found"),
        ("Command Rejected (ValueError): Pipe commands are forbidden", "Command Rejected (ValueError)"),
        ("Command Rejected: Only kubectl commands are allowed.", "Command Rejected: Only kubectl"),
        (
            "meta=None content=[TextContent(type='text', text='tool get_traces failed: no such service', "
            "annotations=None)] isError=True",
            "an MCP result with isError=True",
        ),
    ],
)
def test_a_failure_reported_at_the_start_of_the_output_is_found_and_quoted(output: Any, evidence: str) -> None:
    found = failure_in_output(output)

    assert found is not None
    assert evidence in found


@pytest.mark.parametrize(
    "output",
    [
        "Exit code: 0\nWall time: 0.4 seconds\nOutput:\nall good",
        "Process exited with code 0",
        "2026-11-21T11:02:02Z ERROR upstream auth-svc timed out\nTraceback (most recent call last): in handler",
        "ERROR search failed: [search_phase_execution_exception] all shards failed",
        'HTTP/1.1 200 OK\n\n{"status": "up"}',
        "NAME READY STATUS\nweb-1 0/1 Error",
        "meta=None content=[TextContent(type='text', text=\"['geo', 'user']\", annotations=None)] isError=False",
        "The command rejected by the admission webhook was retried and applied",
        {"error": None, "items": []},
        {"status": "failed", "pods": 3},
        ["Error: a list is not read"],
        None,
        "",
    ],
)
def test_output_that_merely_contains_errors_is_evidence_not_a_failure(output: Any) -> None:
    assert failure_in_output(output) is None


@pytest.mark.parametrize(
    ("output", "evidence"),
    [
        ("<returncode>1</returncode>\n<output>\ngrep: x: No such file\n</output>", "<returncode>1</returncode>"),
        (
            "Chunk ID: 3f2a\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 9\n"
            "Output:\nboom",
            "Process exited with code 1",
        ),
        ("cat: /x: No such file\n[The command completed with exit code 1.]\n[Current working directory: /w]", "code 1"),
        ("some output\n[Command finished with exit code 2]", "exit code 2"),
        ("Command `kubectl get pods -n x` executed with exit code 1.", "executed with exit code 1"),
        ("Ran into [Errno 2] No such file or directory: '/w/hello.py'", "Ran into [Errno 2]"),
        ("Invalid `path` parameter: hello.py. The path should be an absolute path", "Invalid `path` parameter"),
        ("Your proposed edit has introduced new syntax error(s). Please read", "introduced new syntax error"),
        (
            'X=1\nTraceback (most recent call last):\n  File "<string>", line 1\n'
            "json.decoder.JSONDecodeError: Expecting",
            "JSONDecodeError",
        ),
        (
            '<returncode>0</returncode>\n<output>\nTraceback (most recent call last):\n  File "setup.py", line 3\n'
            "ModuleNotFoundError: No module named 'extension_helpers'\n</output>",
            "ModuleNotFoundError",
        ),
        (
            'Chunk ID: 1\nProcess exited with code 0\nOutput:\nTraceback (most recent call last):\n  File "a.py"\n'
            "KeyError: 'x'",
            "KeyError",
        ),
        ("[ERROR] Docker command execution failed: awk: line 1: syntax error at or near >=", "[ERROR] Docker"),
        ("Error parsing response: commands must be quoted strings", "Error parsing response"),
        ("find: \u2018types/\u2019: No such file or directory", "find: \u2018types/\u2019"),  # GNU find's quotes
        ("ls: cannot access 'types/': No such file or directory", "ls: cannot access"),
        ("(eval):1: no matches found: logs/*.gz", "no matches found"),
        ("/root/files/*: cannot open `/root/files/*' (No such file or directory)", "/root/files/*: cannot open"),
        ("Browser Use rejected this action due to browser security policy", "rejected this action"),
        ("write_stdin failed: stdin is closed for this session", "write_stdin failed"),
        ("apply_patch verification failed: Failed to find expected lines in src/app.py", "apply_patch verification"),
        (
            'Params used for the tool call: {"command": "kubectl get storageclass"}. The tool call output follows on '
            "the next line.\nTool call rejected for security reasons: Refusing to execute bash command.",
            "Tool call rejected for security reasons",
        ),
    ],
)
def test_exit_codes_editor_errors_and_dying_tracebacks_of_coding_agents_are_failures(
    output: str, evidence: str
) -> None:
    found = failure_in_output(output)

    assert found is not None
    assert evidence in found


@pytest.mark.parametrize(
    "output",
    [
        "<returncode>0</returncode>\n<output>\nok\n</output>",
        "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok",
        "Hello\n[The command completed with exit code 0.]",
        "Output:\nProcess exited with code 1 is what the log says\nmore",
        "line\nTraceback (most recent call last): in handler\nnext log line",
        "<returncode>0</returncode>\n<output>\nTraceback (most recent call last): in handler\nnext log line\n</output>",
        "<returncode>0</returncode>\n<output>\nstarting\nlog\nmore log\n"
        "Traceback (most recent call last):\nKeyError: 'x'\n</output>",
        "[ERROR] 2026-12-01 payment-svc upstream refused the connection",
        "find: '/proc/1/fd': Permission denied\n/etc/checkout/config.yaml",
        "bash: warning: setlocale: LC_ALL: cannot change locale (en_US.UTF-8)\nNAME READY\nweb-1 1/1",
        "2026-12-01T10:00:00Z healthcheck failed: upstream timeout\n2026-12-01T10:00:05Z healthcheck ok",
        'Params used for the tool call: {"namespace": "shop"}. The tool call output follows on the next line.\n'
        "NAME READY STATUS\nweb-1 1/1 Running",
    ],
)
def test_exit_code_zero_and_a_traceback_inside_a_log_are_evidence(output: str) -> None:
    assert failure_in_output(output) is None
