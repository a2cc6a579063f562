"""Citation quality at scale: ``check_record`` and ``check-dataset`` on a generated dataset of
10,000 answers — good, unsupported, unknown ids, invented locators, provider responses and
malformed records — against ``check`` on each answer, hand-computed measures, Parquet, a resumed
run, several jobs and a Dask cluster."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from citerender import check
from citerender.evaluate.check_dataset import check_dataset
from citerender.evaluate.datasets import read_records
from citerender.evaluate.intervals import ratio_interval
from citerender.evaluate.metrics import Totals
from citerender.evaluate.records import check_record
from citerender.evaluate.results_file import read_results
from citerender.providers import adapt
from citerender.sources.model import registry_from_data

S, D, E = "\ue200", "\ue202", "\ue201"
SOURCES = [
    {
        "id": "s1",
        "title": "Handbook",
        "url": "https://company.example/handbook",
        "lines": [
            "Employees may work remotely up to three days per week.",
            "Additional remote days require manager approval.",
            "Core hours are 10:00 to 15:00.",
        ],
    },
    {
        "id": "s2",
        "title": "Security",
        "url": "https://company.example/security",
        "lines": ["Use the VPN on public networks."],
    },
]
GOOD = f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L1{E} Use the VPN on public networks.{S}cite{D}s2{D}L1{E}"
KINDS: dict[str, Any] = {
    "good": GOOD,
    "unsupported": f"Employees may work remotely up to five days per week.{S}cite{D}s1{D}L1{E}",
    "unknown": f"Remote work is allowed.{S}cite{D}s9{E}",
    "locator": f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L40{E}",
    "two": f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L1{E}{S}cite{D}s2{D}L1{E}",
}
RESPONSE = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "Use the VPN on public networks.",
                "annotations": [
                    {
                        "type": "url_citation",
                        "url_citation": {
                            "url": "https://company.example/security",
                            "title": "Security",
                            "start_index": 0,
                            "end_index": 31,
                        },
                    }
                ],
            },
        }
    ],
}


def dataset(n: int, seed: int = 5) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for k in range(n):
        kind = rng.choice([*KINDS, "good", "response", "malformed"])
        rec: dict[str, Any] = {"id": f"a{k}", "model": rng.choice(["model-a", "model-b"]), "kind": kind}
        if kind == "malformed":
            rec["answer"] = None
        elif kind == "response":
            rec["answer"] = RESPONSE
        else:
            rec.update(answer=KINDS[kind], sources=SOURCES)
        out.append(rec)
    return out


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], Path, Path]:
    tmp = tmp_path_factory.mktemp("big")
    records = dataset(3_500)  # three whole batches of 1,000 and a part one
    data = write_jsonl(tmp / "answers.jsonl", records)
    check_dataset(data, tmp / "results.jsonl", group_by=["model"])
    return records, data, tmp / "results.jsonl"


def test_every_result_is_check_on_its_answer(big: tuple[list[dict[str, Any]], Path, Path]) -> None:
    records, _, results = big
    got = list(read_results(results))
    assert [r["id"] for r in got] == [r["id"] for r in records]  # every record, in order
    registry = registry_from_data(SOURCES)
    kinds = set()
    for rec, res in zip(records, got, strict=True):
        kinds.add(rec["kind"])
        assert res["columns"] == {"model": rec["model"], "kind": rec["kind"]}
        if rec["kind"] == "malformed":
            assert res["failure"] and "no 'answer'" in res["failure"] and res["claims"] == []
            continue
        assert res["failure"] is None
        if rec["kind"] == "response":  # adapted first: the adapter's notes, then check's diagnostics
            a = adapt(RESPONSE)
            expected = [*a.notes, *((d.code, d.message) for d in check(a.text, a.registry))]
        else:
            expected = [(d.code, d.message) for d in check(rec["answer"], registry)]
        assert [(d["code"], d["message"]) for d in res["diagnostics"]] == expected
    assert kinds == {*KINDS, "response", "malformed"}


def test_the_measures_equal_a_hand_count() -> None:
    """Three answers counted by hand: a supported claim, an unsupported one, and one citing an unknown id."""
    records = [
        {"id": "g", "answer": KINDS["good"], "sources": SOURCES},
        {"id": "u", "answer": KINDS["unsupported"], "sources": SOURCES},
        {"id": "k", "answer": KINDS["unknown"], "sources": SOURCES},
        {"id": "t", "answer": KINDS["two"], "sources": SOURCES},
    ]
    totals = Totals()
    for r in records:
        totals.add(check_record(r))
    s = totals.summary()
    c = s["counts"]
    # g: 2 claims supported; u: 1 unsupported (five days); k: 1 claim whose id was dropped (unchecked);
    # t: 1 claim supported citing two sources, the second not about remote work (irrelevant)
    assert (c["cited_claims"], c["supported"], c["unsupported"], c["unchecked"]) == (5, 3, 1, 1)
    assert (c["judged_citations"], c["relevant_citations"]) == (5, 3)
    assert c["unknown_ids"] == 1 and c["citing_places"] == 6  # g 2, u 1, k 1, t 2
    rates = s["rates"]
    assert rates["support_rate"]["value"] == round(3 / 4, 4)
    assert rates["citation_recall"]["value"] == round(3 / 5, 4)
    assert rates["citation_precision"]["value"] == round(3 / 5, 4)
    assert rates["unknown_id_rate"]["value"] == round(1 / 6, 4)
    # the interval is over answers (g 2/2, u 0/1, k 0/0, t 1/1), not over pooled claims
    assert rates["support_rate"]["ci95"] == ratio_interval(Counter({(2, 2): 1, (0, 1): 1, (0, 0): 1, (1, 1): 1}))
    lo, hi = rates["support_rate"]["ci95"]
    assert 0.0 <= lo < 0.75 < hi <= 1.0


def test_results_round_trip_through_parquet(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "answers.jsonl", dataset(300, seed=2))
    check_dataset(data, tmp_path / "r.jsonl")
    check_dataset(data, tmp_path / "r.parquet")
    assert list(read_results(tmp_path / "r.parquet")) == list(read_results(tmp_path / "r.jsonl"))
    # and a Parquet dataset in: the same results as the JSON Lines one
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [{**r, "answer": json.dumps(r["answer"]) if isinstance(r["answer"], dict) else r["answer"],
             "sources": json.dumps(r.get("sources")) if r.get("sources") else None} for r in read_records(data)]  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "answers.parquet")
    check_dataset(tmp_path / "answers.parquet", tmp_path / "r2.jsonl")
    assert list(read_results(tmp_path / "r2.jsonl")) == list(read_results(tmp_path / "r.jsonl"))


@pytest.mark.parametrize("out", ["r.jsonl", "r.json", "r.parquet"])
def test_a_killed_run_resumed_writes_the_same_results(tmp_path: Path, out: str) -> None:
    data = write_jsonl(tmp_path / "answers.jsonl", dataset(400, seed=3))
    whole = tmp_path / f"whole.{out.split('.')[1]}"
    check_dataset(data, whole)
    target = tmp_path / out
    if out.endswith(".jsonl"):  # killed while writing line 151: 150 whole lines and half of one
        lines = whole.read_bytes().splitlines(keepends=True)
        target.write_bytes(b"".join(lines[:150]) + lines[150][: len(lines[150]) // 2])
    else:  # a run killed before it replaced the results: only its temporary file is left
        (tmp_path / f".{out}.x.tmp").write_bytes(b"partial")
    summary = check_dataset(data, target)
    assert summary.skipped == (150 if out.endswith(".jsonl") else 0)
    assert list(read_results(target)) == list(read_results(whole))
    if out.endswith(".jsonl"):
        assert target.read_bytes() == whole.read_bytes()


def test_jobs_give_the_same_results_file(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "answers.jsonl", dataset(200, seed=4))
    check_dataset(data, tmp_path / "one.jsonl", jobs=1)
    check_dataset(data, tmp_path / "two.jsonl", jobs=2)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_a_dask_cluster_gives_the_single_process_results() -> None:
    import dask.bag as db
    from distributed import Client, LocalCluster

    records = dataset(120, seed=6)
    here = [check_record(r) for r in records]
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        there = db.from_sequence(records, npartitions=4).map(check_record).compute()
    assert there == here
    assert any(r["failure"] for r in there)  # failures travel back as data
    totals, reduced = Totals(), Totals()
    for r in here:
        totals.add(r)
    for part in (there[:60], there[60:]):  # reduced per partition, then merged
        t = Totals()
        for r in part:
            t.add(r)
        reduced = reduced.merge(t)
    assert reduced.summary() == totals.summary()


def test_the_command_line(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "answers.jsonl", dataset(150, seed=7))
    r = run_cli(
        "check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--summary", tmp_path / "s.json"
    )
    assert r.returncode == 1, r.stderr  # malformed records are failures
    assert "judge: citerender's lexical support checks" in r.stdout
    assert "model=model-a" in r.stdout and "model=model-b" in r.stdout and "all answers" in r.stdout
    summary = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    assert set(summary["groups"]) == {"model=model-a", "model=model-b"}
    assert summary["overall"]["failures"] == sum(1 for r in read_records(data) if r["answer"] is None)
    again = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl")
    assert "150 already in the results" in again.stdout
    bad = run_cli("check-dataset", tmp_path / "answers.csv", "-o", tmp_path / "x.jsonl")
    assert bad.returncode == 2 and "name it .jsonl, .json or .parquet" in bad.stderr


@pytest.mark.browser
@pytest.mark.parametrize("scheme,width", [("light", 1280), ("dark", 375)])
def test_the_report_page_is_accessible_and_its_charts_labelled(
    browser, tmp_path: Path, scheme: str, width: int
) -> None:  # type: ignore[no-untyped-def]
    from axe_playwright_python.sync_playwright import Axe
    from test_accessibility import RUN_AXE

    data = write_jsonl(tmp_path / "answers.jsonl", dataset(300, seed=8))
    r = run_cli(
        "check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--report", tmp_path / "report.html"
    )
    assert r.returncode == 1, r.stderr
    page_html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script" not in page_html and "http://" not in page_html.replace("http://www.w3.org", "")
    context = browser.new_context(color_scheme=scheme, viewport={"width": width, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda q: requests.append(q.url) if not q.url.startswith("file:") else None)
    page.goto((tmp_path / "report.html").as_uri())
    page.evaluate(str(Axe().axe_script))
    violations = page.evaluate(RUN_AXE)
    charts = page.evaluate(
        """() => [...document.querySelectorAll('figure svg')].map(s => ({
            role: s.getAttribute('role'), name: s.getAttribute('aria-label'),
            caption: s.closest('figure').querySelector('figcaption').textContent,
            table: s.closest('figure').nextElementSibling.querySelector('caption').textContent,
            rows: s.closest('figure').nextElementSibling.querySelectorAll('tbody tr').length}))"""
    )
    scrolls = page.evaluate("() => document.documentElement.scrollWidth > window.innerWidth")
    worst = page.locator("main table a").first
    href = worst.get_attribute("href")
    context.close()
    assert violations == [], violations
    assert requests == []
    assert len(charts) == 2 and all(c["role"] == "img" and c["name"] and c["rows"] > 0 for c in charts)
    assert all(c["table"].startswith("The data of the chart above") for c in charts)
    assert not scrolls  # nothing wider than a phone: wide tables scroll inside their box
    answer_page = (tmp_path / href).read_text(encoding="utf-8")  # rendered with its unsupported claims marked
    assert "citerender-unsupported" in answer_page or "unsupported" in answer_page
