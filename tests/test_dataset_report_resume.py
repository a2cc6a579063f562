"""A resumed run's report is the one an uninterrupted run writes: the same worst answers (those
the earlier run checked among them, their records read again from the dataset), the same links,
the same page."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_check_dataset import dataset, write_jsonl

from citerender.evaluate.check_dataset import check_dataset
from citerender.evaluate.worst import WORST, WRONG_IDS

pytest.importorskip("matplotlib")


def test_a_resumed_run_writes_the_uninterrupted_run_s_report(tmp_path: Path) -> None:
    from citerender.evaluate.report import write_report

    data = write_jsonl(tmp_path / "answers.jsonl", dataset(240, seed=12))
    whole = check_dataset(data, tmp_path / "whole.jsonl", group_by=["model"])
    lines = (tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "part.jsonl").write_bytes(b"".join(lines[:200]))  # most of the worst were checked before the kill
    resumed = check_dataset(data, tmp_path / "part.jsonl", group_by=["model"])
    assert resumed.skipped == 200 and resumed.checked == 40
    a = write_report(whole, tmp_path / "a" / "report.html").read_text(encoding="utf-8")
    b = write_report(resumed, tmp_path / "b" / "report.html").read_text(encoding="utf-8")
    assert [r["id"] for r, _ in resumed.worst_first()] == [r["id"] for r, _ in whole.worst_first()]
    # the twenty worst, and the five worst with a citation of nothing (unknown ids) not among them
    assert len(whole.worst_first()) == WORST + WRONG_IDS and "The worst answers" in b and "No answer with" not in b
    assert a == b
    pages = sorted(p.name for p in (tmp_path / "a" / "report.answers").iterdir())
    assert pages == sorted(p.name for p in (tmp_path / "b" / "report.answers").iterdir()) and pages
