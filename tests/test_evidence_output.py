"""Where the support checks show: ``check`` and ``check --report``, ``render --mark-unsupported``
(a badge a reader sees and a screen reader hears, a note in the card), the JSON export's claims,
the Python API, and a team's own scorer."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from bs4 import BeautifulSoup
from conftest import EXAMPLES, CliResult, run_cli

from citerender import build_site, load_sources, parse_answer, render
from citerender.model.evidence import support_report
from citerender.rendering.exports.json import SCHEMA_PATH, to_json_data

ANSWER = EXAMPLES / "evidence" / "answer.md"
SOURCES = EXAMPLES / "evidence" / "answer.sources.yaml"


def _cli(*args: str, env_path: str | None = None) -> CliResult:
    return run_cli(*args, path=env_path)


def test_the_example_report_names_each_problem() -> None:
    report = support_report(ANSWER.read_text(encoding="utf-8"), load_sources(SOURCES))
    verdicts = [(c.verdict, c.codes) for c in report.claims]
    assert verdicts == [
        ("unsupported", ["CR401"]),
        ("supported", []),
        ("supported", []),
        ("unsupported", ["CR405"]),
        ("unsupported", ["CR403"]),
        ("unsupported", ["CR402"]),
    ]
    assert "thirty (30) days" in report.claims[0].reasons[0]
    assert "turn0file1 L2" in report.claims[4].reasons[0]  # the better source, and the line
    assert report.claims[0].evidence[0].source_id == "turn0file0"
    assert report.claims[0].evidence[0].lines == (1, 1)
    assert report.supported_share == pytest.approx(2 / 6)


def test_check_report_prints_the_table_and_the_share() -> None:
    r = _cli("check", str(ANSWER), "--sources", str(SOURCES), "--report")
    assert r.returncode == 0, r.stderr  # warnings only
    assert "CR401 [warning] 'sixty days' is not in the cited passage" in r.stdout
    table = r.stdout[r.stdout.index("line  verdict") :]
    rows = table.splitlines()[1:-1]
    assert [row.split()[1] for row in rows] == ["unsupported", "supported", "supported"] + ["unsupported"] * 3
    assert "supported: 33% of checked claims (2 supported, 4 unsupported)" in r.stdout


def test_check_report_as_json() -> None:
    r = _cli("check", str(ANSWER), "--sources", str(SOURCES), "--report", "--format", "json")
    data = json.loads(r.stdout)
    assert data["support"]["counts"] == {"supported": 2, "weak": 0, "unsupported": 4, "unchecked": 0}
    assert data["support"]["claims"][0]["evidence"][0]["text"].startswith("The service agreement states")


def test_mark_unsupported_flags_only_unsupported_claims() -> None:
    text = ANSWER.read_text(encoding="utf-8")
    plain = render(text, load_sources(SOURCES), style="footnotes")
    assert "citerender-flag" not in plain.html  # off by default
    assert [d.code for d in plain.diagnostics if d.code.startswith("CR4")] == []  # and not checked
    html = render(text, load_sources(SOURCES), style="footnotes", mark_unsupported=True).html
    soup = BeautifulSoup(html, "html.parser")
    flags = soup.select(".citerender-flag")
    assert len(flags) == 4
    first = flags[0]
    assert first.get("role") == "note"
    assert (
        first.get_text() == "\u26a0 unsupported: 'sixty days' is not in the cited passage (it says 'thirty (30) days')"
    )
    assert first.select_one('[aria-hidden="true"]').get_text() == "\u26a0"  # the sign is not read out
    sup = first.find_next_sibling("sup")
    assert sup is not None and sup.get("id") == "cite-1"  # right before the claim's citation


def test_hover_card_carries_the_note() -> None:
    html = render(
        ANSWER.read_text(encoding="utf-8"), load_sources(SOURCES), style="hovercard", mark_unsupported=True
    ).html
    soup = BeautifulSoup(html, "html.parser")
    card = soup.select_one("#cite-1-card")
    assert card is not None
    warning = card.select_one(".citerender-card-warning")
    assert warning is not None and warning.get_text().startswith("Check this claim: 'sixty days'")
    assert soup.select_one("#cite-2-card .citerender-card-warning") is None


def test_json_export_carries_the_verdicts() -> None:
    parsed = parse_answer(ANSWER.read_text(encoding="utf-8"), load_sources(SOURCES), evidence=True)
    data = to_json_data(parsed)
    jsonschema.validate(data, json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))
    assert [c["verdict"] for c in data["claims"]][:2] == ["unsupported", "supported"]
    assert data["claims"][0]["anchor"] == data["citations"][0]["anchor"]
    r = _cli("render", str(ANSWER), "--sources", str(SOURCES), "--to", "json")
    assert json.loads(r.stdout)["claims"][0]["codes"] == ["CR401"]
    no_checks = to_json_data(parse_answer(ANSWER.read_text(encoding="utf-8"), load_sources(SOURCES)))
    assert "claims" not in no_checks


def test_render_cli_mark_unsupported(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    r = _cli("render", str(ANSWER), "--sources", str(SOURCES), "--mark-unsupported", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "CR401" in r.stderr
    assert len(BeautifulSoup(out.read_text(encoding="utf-8"), "html.parser").select(".citerender-flag")) == 4
    r = _cli("render", str(ANSWER), "--sources", str(SOURCES), "--mark-unsupported", "--to", "markdown")
    assert r.returncode == 2 and "--mark-unsupported has no effect with --to markdown" in r.stderr


class HalfScorer:
    """Rates claims about Finance 0.2, others 0.9."""

    def score(self, claim: str, evidence: str) -> float:
        return 0.2 if "Finance" in claim else 0.9


def test_a_scorer_adds_its_judgement() -> None:
    report = support_report(ANSWER.read_text(encoding="utf-8"), load_sources(SOURCES), scorer=HalfScorer())
    assert [c.score for c in report.claims] == [0.9, 0.9, 0.9, 0.2, 0.9, 0.9]
    assert report.claims[3].codes == ["CR405", "CR406"]
    assert report.claims[1].verdict == "supported"


def test_scorer_from_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "team_nli.py").write_text(
        "def score(claim, evidence):\n    return 0.1 if 'legal address' in claim or 'Either party' in claim else 0.95\n",
        encoding="utf-8",
    )
    r = _cli("check", str(ANSWER), "--sources", str(SOURCES), "--scorer", "team_nli:score", env_path=str(tmp_path))
    assert r.stdout.count("CR406") == 1, r.stdout + r.stderr
    r = _cli("check", str(ANSWER), "--sources", str(SOURCES), "--scorer", "no_such_module:score")
    assert r.returncode == 2 and "cannot be loaded" in r.stderr
    r = _cli("check", str(ANSWER), "--sources", str(SOURCES), "--scorer", "nocolon")
    assert r.returncode == 2 and "is not MODULE:NAME" in r.stderr


def test_a_scorer_without_score_is_refused() -> None:
    with pytest.raises(TypeError, match="score"):
        render("x", None, scorer=object())


def test_build_marks_unsupported_claims_and_skips_unchanged_pages(tmp_path: Path) -> None:
    src, out = tmp_path / "answers", tmp_path / "site"
    src.mkdir()
    (src / "terms.md").write_text(ANSWER.read_text(encoding="utf-8"), encoding="utf-8")
    (src / "terms.sources.yaml").write_text(SOURCES.read_text(encoding="utf-8"), encoding="utf-8")
    first = build_site(src, out, mark_unsupported=True, scorer=HalfScorer(), jobs=2)
    assert first.written == 1 and not first.failed
    page = BeautifulSoup((out / "terms.html").read_text(encoding="utf-8"), "html.parser")
    assert len(page.select(".citerender-flag")) == 4
    assert build_site(src, out, mark_unsupported=True, scorer=HalfScorer()).skipped == 1  # same scorer class
    assert build_site(src, out).written == 1  # the flags go: re-rendered
