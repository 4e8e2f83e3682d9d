"""The docs stay navigable and true to the code: a short README whose links lead somewhere, an environment table
that lists exactly the ``Settings`` fields with their descriptions (it is generated; these tests catch a page that
was not regenerated, or a new field without a description), and pages that describe the system as it is: the
project's history lives on one page that no other page needs, and the performance page stays goals, method and
the latest figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from markdown.extensions.toc import slugify

from scripts import env_table
from session_scoring.configuration.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CONFIGURATION_PAGE = ROOT / "docs" / "configuration.md"
README_LIMIT_BYTES = 12 * 1024
DOCS = ROOT / "docs"
PERFORMANCE_PAGE = DOCS / "performance.md"
HISTORY_PAGE = DOCS / "performance-history.md"
PERFORMANCE_LIMIT_LINES = 400

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$", re.MULTILINE)
_WAVE = re.compile(r"\bwaves?\b", re.IGNORECASE)


def _links(markdown: str) -> list[str]:
    return _LINK.findall(_FENCE.sub("", markdown))


def _anchors(markdown: str) -> set[str]:
    return {slugify(heading, "-") for heading in _HEADING.findall(_FENCE.sub("", markdown))}


def test_readme_is_short() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT_BYTES, (
        f"README.md is {size} bytes; keep it under {README_LIMIT_BYTES} (move detail into a docs/ page and link it)"
    )


def test_readme_links_resolve() -> None:
    readme = README.read_text(encoding="utf-8")
    broken = []
    for target in _links(readme):
        if re.match(r"^[a-z]+:", target):
            continue
        path_part, _, anchor = target.partition("#")
        path = (README.parent / path_part) if path_part else README
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading #{anchor} in {path.relative_to(ROOT)}")
    assert not broken, "broken links in README.md:\n" + "\n".join(broken)


def test_readme_links_the_docs_index() -> None:
    targets = {target.partition("#")[0] for target in _links(README.read_text(encoding="utf-8"))}
    assert "docs/index.md" in targets


def _nav_pages(nav: list[object]) -> set[str]:
    pages: set[str] = set()
    for entry in nav:
        values = entry.values() if isinstance(entry, dict) else [entry]
        for value in values:
            pages |= _nav_pages(value) if isinstance(value, list) else {str(value)}
    return pages


def test_every_docs_page_is_in_the_site_navigation() -> None:
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    pages = {page.name for page in (ROOT / "docs").glob("*.md")}
    listed = _nav_pages(nav)
    assert not pages - listed, f"add these pages to the nav in mkdocs.yml: {sorted(pages - listed)}"
    assert not listed - pages, f"mkdocs.yml lists pages that do not exist: {sorted(listed - pages)}"


def test_link_check_reports_a_missing_anchor() -> None:
    page = "# Title\n\n## Retries and the circuit breaker\n\n```sh\n# not a heading\n```\n"
    assert "retries-and-the-circuit-breaker" in _anchors(page)
    assert "not-a-heading" not in _anchors(page)
    assert _links("[a](docs/x.md#y) ![img](i.png) `[c](d)`") == ["docs/x.md#y", "d"]


def _pages_besides_the_history() -> list[Path]:
    return [README, *(page for page in sorted(DOCS.glob("*.md")) if page != HISTORY_PAGE)]


def test_only_the_history_page_narrates_waves() -> None:
    mentions = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in _pages_besides_the_history()
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        if _WAVE.search(line)
    ]
    assert not mentions, (
        f"only {HISTORY_PAGE.relative_to(ROOT)} may tell the project's history; say what holds now instead:\n"
        + "\n".join(mentions)
    )


def test_the_history_page_is_linked_from_the_performance_page_only() -> None:
    linking = {
        page.name
        for page in _pages_besides_the_history()
        for target in _links(page.read_text(encoding="utf-8"))
        if target.partition("#")[0].endswith(HISTORY_PAGE.name)
    }
    assert linking == {PERFORMANCE_PAGE.name}, f"pages linking to {HISTORY_PAGE.name}: {sorted(linking)}"


def test_the_performance_page_stays_short() -> None:
    lines = len(PERFORMANCE_PAGE.read_text(encoding="utf-8").splitlines())
    assert lines <= PERFORMANCE_LIMIT_LINES, (
        f"docs/performance.md has {lines} lines; keep goals, method and the latest figures within "
        f"{PERFORMANCE_LIMIT_LINES} and move superseded figures to {HISTORY_PAGE.name}"
    )


def test_wave_check_matches_the_word_only() -> None:
    assert _WAVE.search("measured in Wave 5")
    assert _WAVE.search("two waves later")
    assert not _WAVE.search("a waveform; microwaves")


def test_every_setting_has_a_description() -> None:
    missing = [name for name, field in env_table.documented_fields() if not (field.description or "").strip()]
    assert not missing, f"add description= to these Settings fields: {missing}"


def test_environment_table_matches_settings() -> None:
    page = CONFIGURATION_PAGE.read_text(encoding="utf-8")
    assert env_table.updated_page(page) == page, "docs/configuration.md is out of date: run `make docs` and commit it"


def test_environment_table_lists_each_field_with_its_description() -> None:
    page = CONFIGURATION_PAGE.read_text(encoding="utf-8")
    table = page[page.index(env_table.BEGIN) : page.index(env_table.END)]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    fields = [(name, field) for name, field in Settings.model_fields.items() if not field.exclude]
    assert len(rows) == len(fields)
    for row, (name, field) in zip(rows, fields, strict=True):
        first_variable = env_table.variables(name, field)[0]
        assert row.startswith(f"| `{first_variable}`"), row
        assert " ".join((field.description or "").split()).replace("|", "\\|") in row


def test_a_stale_table_is_replaced() -> None:
    stale = f"intro\n{env_table.BEGIN}\n| variable | meaning |\n| `GONE` | removed |\n{env_table.END}\noutro\n"
    updated = env_table.updated_page(stale)
    assert "`GONE`" not in updated
    assert "`SCORING_QUEUE_URL`" in updated
    assert updated.startswith("intro\n")
    assert updated.endswith(f"{env_table.END}\noutro\n")


def test_a_page_without_markers_is_an_error() -> None:
    with pytest.raises(ValueError, match="markers"):
        env_table.updated_page("# Configuration\n")


def test_check_mode_reports_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = tmp_path / "configuration.md"
    page.write_text(f"{env_table.BEGIN}\n{env_table.END}\n", encoding="utf-8")
    monkeypatch.setattr(env_table, "PAGE", page)
    monkeypatch.setattr(env_table, "REPO_ROOT", tmp_path)
    assert env_table.main(["--check"]) == 1
    assert env_table.main([]) == 0
    assert env_table.main(["--check"]) == 0
    assert "`SCORING_QUEUE_URL`" in page.read_text(encoding="utf-8")


def test_every_variable_of_the_criteria_file_is_documented() -> None:
    lines = (ROOT / "config" / "scoring_config.yaml").read_text(encoding="utf-8").splitlines()
    values = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    variables = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", values))
    page = CONFIGURATION_PAGE.read_text(encoding="utf-8")
    undocumented = sorted(name for name in variables if f"`{name}`" not in page)
    assert variables
    assert not undocumented, f"docs/configuration.md does not mention these criteria-file variables: {undocumented}"
