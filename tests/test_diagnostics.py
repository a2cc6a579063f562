"""Every diagnostic code, failing and passing, from a fixture file; and the code table."""

from __future__ import annotations

import re

import pytest
from conftest import FIXTURES, ROOT, expand
from markdown_it.utils import read_fixture_file

from citerender import check, load_sources
from citerender.diagnostics import CODES, Diagnostic, Severity, has_errors, markdown_table


class MoonScorer:
    """A stand-in for an entailment model: 0.1 for claims about the moon, 0.9 otherwise."""

    def score(self, claim: str, evidence: str) -> float:
        return 0.1 if "moon" in claim else 0.9


class BrokenScorer:
    """A scorer gone wrong: NaN for claims about the moon, an exception for claims about Mars."""

    def score(self, claim: str, evidence: str) -> float:
        if "Mars" in claim:
            raise RuntimeError("model server unreachable")
        return float("nan") if "moon" in claim else 0.9


CASES = read_fixture_file(FIXTURES / "diagnostics.md")
REGISTRY = load_sources(FIXTURES / "diagnostics.sources.json")


@pytest.mark.parametrize("line,title,text,expected", CASES, ids=[c[1] for c in CASES])
def test_diagnostic_fixture(line: int, title: str, text: str, expected: str) -> None:
    # "[no sources]" in a title: checked without a registry; "[repo]": against fixtures/repo;
    # "[scorer]": with a support scorer that rejects claims about the moon; "[broken scorer]": one
    # that returns NaN for them and raises for claims about Mars
    registry = None if "[no sources]" in title else REGISTRY
    diags = check(
        expand(text),
        registry,
        repo=str(FIXTURES / "repo") if "[repo]" in title else None,
        scorer=MoonScorer() if "[scorer]" in title else BrokenScorer() if "[broken scorer]" in title else None,
    )
    if "CR308" not in title:
        diags = [d for d in diags if d.code != "CR308"]
    got = "\n".join(f"{d.code} {d.line}:{d.column}" for d in diags)
    assert got == expected.strip("\n"), f"{title} (fixture line {line})"
    code = title.split()[0]
    if title.rstrip().endswith("fail"):
        assert any(d.code == code for d in diags)
    else:
        assert all(d.code != code for d in diags)


#: codes of importing a chat export or a provider's response, not of checking an answer:
#: test_conversations.py (CR501, CR502) and test_providers.py (CR503–CR505), test_hostile_inputs.py (CR506), test_providers.py (CR507), test_conversations.py (CR508, CR509), test_provider_recordings.py (CR510, CR511), test_agents_perplexity_xai.py (CR512), test_gemini_anthropic_round4.py (CR515) have their cases
IMPORT_CODES = {f"CR5{n:02d}" for n in range(1, 17)}  # CR501–CR516


def test_every_code_has_a_failing_and_a_passing_fixture() -> None:
    failing = {c[1].split()[0] for c in CASES if c[1].rstrip().endswith("fail")}
    passing = {c[1].split()[0] for c in CASES if c[1].rstrip().endswith("pass")}
    answer_codes = set(CODES) - IMPORT_CODES
    assert answer_codes <= failing, sorted(answer_codes - failing)
    assert answer_codes <= passing, sorted(answer_codes - passing)
    assert {c for c in CODES if c.startswith("CR5")} == IMPORT_CODES


#: what citerender's MkDocs plugin would read as a marker outside code (the docs render with it)
MARKER_LIKE = ("\\ue2", "【", "citeturn", "contentReference", "oai_citation", "<Cite", "fallbackMarkdown")


def docs_table() -> str:
    """``citerender codes`` as the docs print it: a cell naming a marker form is a code span."""
    rows = []
    for row in markdown_table().split("\n"):
        cells = re.split(r"(?<!\\)\|", row)
        if row.startswith("| `CR"):
            for i in (4, 5):  # what it means, fix
                text = cells[i].strip()
                cells[i] = f" `{text}` " if any(m in text for m in MARKER_LIKE) else cells[i]
        rows.append("|".join(cells))
    return "\n".join(rows)


def test_docs_document_every_code() -> None:
    """The docs site's diagnostics page holds the whole table (the README links to it)."""
    page = (ROOT / "docs" / "diagnostics.md").read_text(encoding="utf-8")
    assert docs_table() in page, "regenerate the table in docs/diagnostics.md from docs_table() (citerender codes)"
    assert all(f"| `{code}` |" in page for code in CODES)


def test_diagnostic_format_and_severity() -> None:
    d = Diagnostic.make("CR101", "unknown source id 'x'", line=3, column=7)
    assert d.format("a.md") == "a.md:3:7: CR101 [error] unknown source id 'x'"
    assert d.severity is Severity.ERROR and has_errors([d])
    assert d.to_dict()["name"] == "unknown-source" and d.hint


def test_codes_show_the_characters_as_escapes_a_reader_can_type() -> None:
    """``codes`` names the marker characters in its fixes by their escapes (``\\ue200``), never an
    unfilled ``{CITATION_START}`` placeholder and never the invisible characters themselves."""
    from conftest import run_cli

    r = run_cli("codes")
    assert r.returncode == 0
    assert "{CITATION" not in r.stdout and "{HIGHLIGHT" not in r.stdout
    assert not any("\ue200" <= ch <= "\ue206" for ch in r.stdout)
    assert "write markers as \\ue200cite\\ue202<id>[\\ue202L<n>-L<m>]\\ue201" in r.stdout
    # diagnostics themselves carry no marker in any form (escapes included): placeholders there
    assert not any("\\ue20" in c.hint or "\\ue20" in c.summary for c in CODES.values())
