"""Canonical tool names: the many ways a judge spells one tool count as one name, matched to the session's tools."""

from __future__ import annotations

import pytest

from session_scoring.models.tools import ToolNamer, canonical_tool_name, loose_tool_key

# Spellings a judge writes and what they are counted as without a session to match against.
SPELLINGS = [
    ("get_pod", "get_pod"),
    ("Get_Pod", "get_pod"),
    ("mcp__k8s__get_pod", "get_pod"),
    ("k8s.get_pod", "get_pod"),
    ("k8s: get_pod", "get_pod"),
    ("k8s:get_pod", "get_pod"),
    ("kubernetes-server/get_pod", "get_pod"),
    ("  K8s.Get_Pod  ", "get_pod"),
    ("a.b.c.get_pod", "get_pod"),
    ("mcp__a.b__get_pod", "get_pod"),
    ("k8s___get_pod", "get_pod"),  # the last "__" ends the prefix
    ("list  processes\tin pod", "list processes in pod"),
    ("srv: list   processes", "list processes"),
    ("kubectl-top", "kubectl-top"),
    ("KUBECTL TOP", "kubectl top"),
    ("k8s.", "k8s."),  # all prefix: the whole name rather than nothing
    ("::", "::"),
    ("", ""),
]


@pytest.mark.parametrize(("written", "counted"), SPELLINGS)
def test_canonical_name_drops_case_whitespace_and_the_server_prefix(written: str, counted: str) -> None:
    assert canonical_tool_name(written) == counted


def test_the_loose_key_ignores_separators_but_not_letters() -> None:
    keys = {loose_tool_key(n) for n in ("get-pod-logs", "get_pod_logs", "Get Pod Logs", "k8s.GetPodLogs")}
    assert keys == {"getpodlogs"}
    assert loose_tool_key("get_pods_log") != loose_tool_key("get_pod_logs")


def test_a_name_matching_an_available_tool_is_counted_as_that_tool_and_as_available() -> None:
    namer = ToolNamer(["kubernetes-server.get_pod_logs", "prometheus.query_range"])
    for written in ("K8s.Get_Pod_Logs", "get-pod-logs", "mcp__k8s__get pod logs", "GetPodLogs"):
        tool = namer.canonical(written)
        assert (tool.name, tool.available) == ("get_pod_logs", True), written
    assert namer.canonical("prometheus: Query-Range").name == "query_range"


def test_a_name_no_available_tool_matches_keeps_its_base_form_and_is_not_available() -> None:
    namer = ToolNamer(["kubernetes-server.get_pod_logs"])
    tool = namer.canonical("K8s.Describe-Node")
    assert (tool.name, tool.available) == ("describe-node", False)
    assert ToolNamer().canonical("get-pod-logs").name == "get-pod-logs"  # no session: separators are kept


def test_two_available_tools_with_one_loose_key_the_first_listed_wins() -> None:
    assert ToolNamer(["a.get-pod", "b.get_pod"]).canonical("GET POD").name == "get-pod"
    assert ToolNamer(["b.get_pod", "a.get-pod"]).canonical("GET POD").name == "get_pod"
