"""citerender's citation precision with a scorer: a citation of a supported claim is relevant when
the scorer finds its passage alone supports the claim, or the claim's other citations without it
no longer do — not when it merely shares a quarter of the claim's words; and the summary says what
citation recall divides by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citerender.cli.scorer import load_scorer
from citerender.evaluate.check_dataset import DatasetSummary
from citerender.evaluate.records import check_record

S, D, E = "\ue200", "\ue202", "\ue201"
SOURCES = [
    {"id": "height", "title": "Tower facts", "text": "The tower is 330 metres tall."},
    {"id": "place", "title": "Tower facts", "text": "The tower stands in Paris."},
    {"id": "city", "title": "Berlin", "text": "Berlin is a city."},
    {"id": "capital", "title": "Germany", "text": "The capital of Germany is large."},
    {"id": "records", "title": "Records", "text": "Records say the tower is 330 metres tall."},
]


def claim(text: str, *ids: str) -> dict[str, Any]:
    answer = f"{text}{S}cite{D}{D.join(ids)}{E}"
    return {"id": "-".join(ids), "answer": answer, "sources": SOURCES}


def relevant(record: dict[str, Any], scorer: Any = None) -> list[bool]:
    result = check_record(record, scorer=scorer)
    assert result["failure"] is None and len(result["claims"]) == 1
    row = result["claims"][0]
    assert row["verdict"] == "supported", row
    return list(row["relevant"])


def test_the_scorer_decides_which_citations_are_relevant() -> None:
    judge = load_scorer("alce_judge:scorer")
    other_facts = claim("The tower is 330 metres tall.", "height", "place")
    assert relevant(other_facts) == [True, True]  # before: "tower" is a quarter of the claim's words
    assert relevant(other_facts, judge) == [True, False]  # precision 1/2: the second supports nothing
    both_needed = claim("Berlin is the capital of Germany.", "city", "capital")
    assert relevant(both_needed, judge) == [True, True]
    each_enough = claim("The tower is 330 metres tall.", "height", "records")
    assert relevant(each_enough, judge) == [True, True]


def test_the_summary_says_what_citation_recall_divides_by() -> None:
    summary = DatasetSummary("judge", ())
    summary.add(check_record(claim("The tower is 330 metres tall.", "height")), None)
    words = summary.to_dict()["definitions"]
    assert "divided by cited claims" in words["citation_recall"]
    assert "sentences without a citation are not counted" in words["citation_recall"]
    assert "alone" in words["citation_precision"] or "quarter" in words["citation_precision"]


def test_the_report_says_what_citation_recall_divides_by(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from citerender.evaluate.report import write_report

    summary = DatasetSummary("judge", ())
    record = claim("The tower is 330 metres tall.", "height", "place")
    summary.add(check_record(record), record)
    page = write_report(summary, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "What each rate divides by" in page
    assert "divided by cited claims" in page and "sentences without a citation are not counted" in page
