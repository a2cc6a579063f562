"""``check-dataset --alce``: an ALCE result file (or its data list) read item by item, scored by
ALCE eval.py's rules with a deterministic judge (``tests/alce_judge.py``) and checked against
numbers computed by hand from eval.py's code; one result per item, none failing; the same with
``--jobs 1`` and ``--jobs 2``; resumed and restarted; usage errors before any work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from citerender.evaluate.results_file import read_results

pytest.importorskip("nltk")

TESTS = str(Path(__file__).parent)


def doc(title: str, text: str, **more: str) -> dict[str, str]:
    return {"title": title, "text": text, **more}


#: (item, eval.py's per-item recall and precision with the judge, worked out by hand from its code)
ITEMS: list[tuple[dict[str, Any], float | None, float | None]] = [
    # [1] entails; [1][2]: joint entails, [1] alone not and [2] without it does (needless), [2] counts; [3] not
    ({"question": "q1", "output": "The Eiffel Tower is in Paris [1]. It was completed in 1889 [1][2]. It is made of iron [3].",
      "docs": [doc("Eiffel Tower", "The Eiffel Tower is a landmark in Paris."), doc("History", "The tower was completed in 1889."),
               doc("Louvre", "The Louvre is a museum.")]}, 2 / 3, 2 / 4),
    # a sentence without a citation scores 0
    ({"question": "q2", "output": "Water boils at 100 degrees [1]. Ice is cold.",
      "docs": [doc("Water", "Water boils at 100 degrees Celsius.")]}, 1 / 2, 1.0),
    # a citation past the last document: 0, and not counted among the citations
    ({"question": "q3", "output": "Mars is red [2]. Mars has two moons [1].",
      "docs": [doc("Mars", "Mars has two moons, Phobos and Deimos.")]}, 1 / 2, 1.0),
    # [1, 2]: only [1] read, and remove_citations leaves ", 2" in the claim (the 2 is nowhere: not entailed)
    ({"question": "q4", "output": "Gold is dense [1, 2]. Silver conducts heat [2].",
      "docs": [doc("Gold", "Gold is a dense metal."), doc("Silver", "Silver conducts heat well.")]}, 1 / 2, 1 / 2),
    # at most 3 citations: the fourth, which supports it, is not read
    ({"question": "q5", "output": "Rome is in Italy [1][2][3][4].",
      "docs": [doc("A", "Alpha"), doc("B", "Beta"), doc("C", "Gamma"), doc("Rome", "Rome is in Italy.")]}, 0.0, 0.0),
    # no sentence: left out of the averages
    ({"question": "q6", "output": "", "docs": [doc("Empty", "Nothing.")]}, None, None),
    # two documents each needed: both count
    ({"question": "q7", "output": "Berlin is the capital of Germany [1][2].",
      "docs": [doc("Berlin", "Berlin is a city."), doc("Germany", "The capital of Germany is large.")]}, 1.0, 1.0),
    # the first line only
    ({"question": "q8", "output": "Paris is in France [1].\nIgnored line [1].", "docs": [doc("France", "Paris is in France.")]},
     1.0, 1.0),
    # a supporting passage and one about the same tower's other facts: [1] counts, [2] is needless
    ({"question": "q10", "output": "The Eiffel Tower is 330 metres tall [1][2].",
      "docs": [doc("Eiffel Tower", "The Eiffel Tower is 330 metres tall."),
               doc("Eiffel Tower", "The Eiffel Tower stands in Paris and was designed by Gustave Eiffel.")]}, 1.0, 0.5),
    # a QA-extracted document: its 'sent', and an id of its own
    ({"question": "q9", "output": "The Moon orbits Earth [1].",
      "docs": [{"id": "x", "title": "Moon", "text": "unrelated", "sent": "The Moon orbits Earth."}]}, 1.0, 1.0),
]  # fmt: skip
#: eval.py's aggregates: per-item means over the 9 items with a sentence, in percent
RECALL = 100 * (2 / 3 + 0.5 + 0.5 + 0.5 + 0 + 1 + 1 + 1 + 1) / 9  # 68.519
PRECISION = 100 * (0.5 + 1 + 1 + 0.5 + 0 + 1 + 1 + 0.5 + 1) / 9  # 72.222


def alce_file(path: Path, *, listed: bool = False) -> Path:
    data = [item for item, _, _ in ITEMS]
    path.write_text(json.dumps(data if listed else {"args": {"model": "m", "ndoc": 3}, "data": data}), encoding="utf-8")
    return path


def alce_run(data: Path, out: Path, *more: object) -> Any:
    return run_cli("check-dataset", data, "-o", out, "--alce", "--scorer", "alce_judge:scorer", *more, path=TESTS)


def test_alce_numbers_are_eval_py_s_with_any_jobs(tmp_path: Path) -> None:
    data = alce_file(tmp_path / "result.json")
    one = alce_run(data, tmp_path / "r1.jsonl", "--summary", tmp_path / "s1.json", "--jobs", "1")
    two = alce_run(data, tmp_path / "r2.jsonl", "--summary", tmp_path / "s2.json", "--jobs", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert (tmp_path / "r1.jsonl").read_bytes() == (tmp_path / "r2.jsonl").read_bytes()
    assert one.stdout == two.stdout
    results = list(read_results(tmp_path / "r1.jsonl"))
    assert len(results) == len(ITEMS) and not any(r["failure"] for r in results)  # one result per item, none fails
    for r, (item, recall, precision) in zip(results, ITEMS, strict=True):
        assert r["columns"]["question"] == item["question"]
        assert r["alce"]["alce_citation_recall"] == pytest.approx(recall)
        assert r["alce"]["alce_citation_precision"] == pytest.approx(precision)
    summary = json.loads((tmp_path / "s1.json").read_text(encoding="utf-8"))
    alce = summary["alce"]
    assert alce["alce_citation_recall"] == pytest.approx(RECALL, abs=1e-3)
    assert alce["alce_citation_precision"] == pytest.approx(PRECISION, abs=1e-3)
    assert (alce["items"], alce["items_scored"]) == (10, 9) and "eval.py" in alce["definition"]
    assert summary == json.loads((tmp_path / "s2.json").read_text(encoding="utf-8"))
    assert "ALCE (eval.py): citation recall 68.5, citation precision 72.2 over 9 item(s)" in one.stdout
    # our own measures read the same answers: [n] as numbered citations of the documents in order
    first = results[0]
    assert [c["cited"][0]["id"] for c in first["claims"]] == ["1", "1", "3"]
    assert summary["overall"]["counts"]["cited_claims"] > 0


def test_the_data_list_alone_resume_and_restart(tmp_path: Path) -> None:
    whole = alce_file(tmp_path / "result.json")
    listed = alce_file(tmp_path / "data.json", listed=True)
    alce_run(whole, tmp_path / "a.jsonl")
    r = alce_run(listed, tmp_path / "b.jsonl", "--group-by", "question")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert "ALCE (eval.py) question=q1: citation recall 66.7, citation precision 50.0" in r.stdout
    lines = (tmp_path / "a.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "a.jsonl").write_bytes(b"".join(lines[:4]))  # killed after four items
    again = alce_run(whole, tmp_path / "a.jsonl", "--summary", tmp_path / "s.json")
    assert "checked 6 answer(s), 4 already in the results" in again.stdout
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    resumed = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["alce"]
    assert resumed["alce_citation_recall"] == pytest.approx(RECALL, abs=1e-3)  # earlier results counted too
    restarted = alce_run(whole, tmp_path / "a.jsonl", "--restart")
    assert "checked 10 answer(s);" in restarted.stdout
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()


def test_alce_without_a_scorer_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    data = alce_file(tmp_path / "result.json")
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--alce")
    assert r.returncode == 2 and "--scorer MODULE:NAME" in r.stderr and "Traceback" not in r.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_not_an_alce_file_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"args": {}, "results": []}), encoding="utf-8")
    r = alce_run(bad, tmp_path / "r.jsonl")
    assert r.returncode == 2 and "'data' list" in r.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_without_nltk_it_fails_first_naming_the_extra(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked" / "nltk"
    blocked.mkdir(parents=True)
    (blocked / "__init__.py").write_text("raise ImportError('nltk is blocked')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(blocked.parent), TESTS])}
    data = alce_file(tmp_path / "result.json")
    argv = ["check-dataset", str(data), "-o", str(tmp_path / "r.jsonl"), "--alce", "--scorer", "alce_judge:scorer"]
    r = subprocess.run(
        [sys.executable, "-m", "citerender.cli", *argv], env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "citerender[alce]" in r.stderr and "pip install -e '.[alce]'" in r.stderr and "Traceback" not in r.stderr
    assert r.stdout == "" and not (tmp_path / "r.jsonl").exists()


def test_the_report_shows_alce_s_numbers(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    data = alce_file(tmp_path / "result.json")
    r = alce_run(data, tmp_path / "r.jsonl", "--report", tmp_path / "report.html")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "ALCE&#39;s citation recall and precision" in page or "ALCE's citation recall and precision" in page
    assert "citation recall 68.5, citation precision 72.2, averaged over 9 item(s)" in page
    assert "report.answers" in page  # the worst answers rendered, their [n] read as numbered citations
