"""The docs site (``mkdocs.yml``, ``docs/``) builds under ``mkdocs build --strict`` without a WARNING
or ERROR line, renders its citations with citerender's own plugin, never shows a marker, and names
every ``citerender`` command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT

from citerender.cli import build_parser

pytest.importorskip("mkdocs")

DOCS = ROOT / "docs"
MARKER_CHARACTERS = re.compile("[\ue200-\ue206]")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    site = tmp_path_factory.mktemp("docs-site")
    r = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    said = r.stdout + r.stderr
    assert r.returncode == 0, said
    return site, said


def test_the_build_is_clean(built: tuple[Path, str]) -> None:
    _, said = built
    bad = [line for line in said.splitlines() if re.search(r"\b(WARNING|ERROR)\b", line)]
    assert not bad, "\n".join(bad)


def test_mkdocs_yml_uses_citerenders_own_plugin() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    names = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert "citerender" in names
    assert len(config["nav"]) >= 5


def test_a_page_shows_real_rendered_citations(built: tuple[Path, str]) -> None:
    site, _ = built
    page = (site / "example" / "index.html").read_text(encoding="utf-8")
    assert page.count('class="citerender-cite') >= 5, "the example page's markers were not rendered"
    assert "Employee Handbook" in page and "assets/citerender.css" in page
    source = (DOCS / "example.md").read_text(encoding="utf-8")
    assert MARKER_CHARACTERS.search(source) and source.startswith("---\n")  # real markers, front-matter sources


def test_no_page_leaks_a_marker(built: tuple[Path, str]) -> None:
    site, _ = built
    pages = [p for p in site.rglob("*") if p.suffix in (".html", ".json", ".xml") and p.is_file()]
    assert len([p for p in pages if p.name == "index.html"]) >= 8
    leaked = [str(p.relative_to(site)) for p in pages if MARKER_CHARACTERS.search(p.read_text(encoding="utf-8"))]
    assert not leaked, leaked


def test_every_command_appears_in_the_docs() -> None:
    text = "\n".join(p.read_text(encoding="utf-8") for p in DOCS.glob("*.md"))
    parser = build_parser()
    [sub] = [a for a in parser._actions if a.choices and a.dest != "help"]  # the subcommands
    commands = list(sub.choices or {})
    assert len(commands) >= 9
    missing = [c for c in commands if f"citerender {c}" not in text]
    assert not missing, missing


def test_the_reference_moved_with_its_checks() -> None:
    """What left the README is in the docs: options, sources format, styles, security, benchmarks, layout."""
    pages = {p.stem: p.read_text(encoding="utf-8") for p in DOCS.glob("*.md")}
    assert "--unknown drop|keep|error" in pages["cli"]
    assert '"sources": [' in pages["sources"]
    assert all(style in pages["styles"] for style in ("**footnotes**", "**hovercard**", "**pills**", "**sidenotes**"))
    assert "SECURITY.md" in pages["security"] and "| target |" in pages["benchmarks"]
    assert "import-linter" in pages["development"]
