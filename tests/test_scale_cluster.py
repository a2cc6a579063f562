"""The per-page function for archives (``render_record``) on a real local Dask cluster: worker
processes, records pickled both ways, the same pages as rendering in this process."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dask.bag as db
import pytest
from bs4 import BeautifulSoup
from distributed import Client, LocalCluster

from citerender import render
from citerender.publish.records import render_record
from citerender.sources.files import load_sources

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = ROOT / "examples" / "handbook"


def _records() -> list[dict[str, object]]:
    answer = (HANDBOOK / "answer.md").read_text(encoding="utf-8")
    sources = json.loads((HANDBOOK / "answer.sources.json").read_text(encoding="utf-8"))
    good = [{"id": f"a{i}", "answer": answer, "sources": sources, "title": f"Answer {i}"} for i in range(6)]
    return [
        *good,
        {"id": "no-sources", "answer": "Renewals are due in June.\ue200cite\ue202turn0file0\ue201"},
        {"id": "bad-sources", "answer": "text", "sources": {"sources": "not a list"}},
        {"id": "no-answer"},
    ]


def test_record_is_the_render_of_its_answer() -> None:
    rec = _records()[0]
    out = render_record(rec, style="hovercard")
    expected = render(
        rec["answer"], load_sources(HANDBOOK / "answer.sources.json"), style="hovercard", title="Answer 0"
    )
    assert out["failure"] is None
    assert out["html"] == expected.html
    assert out["diagnostics"] == [d.to_dict() for d in expected.diagnostics]
    cites = BeautifulSoup(out["html"], "html.parser").select(".citerender-cite")
    assert cites, "the handbook answer's citations are rendered"


def test_bad_records_are_reported_not_raised() -> None:
    by_id = {r["id"]: render_record(r) for r in _records()[-3:]}
    assert by_id["no-sources"]["failure"] is None
    sup = BeautifulSoup(by_id["no-sources"]["html"], "html.parser").select_one("sup.citerender-cite")
    assert sup is not None and sup.get_text() == "[1]"
    assert "expected a list of sources" in by_id["bad-sources"]["failure"]
    assert by_id["bad-sources"]["html"] == ""
    assert "no 'answer' text" in by_id["no-answer"]["failure"]
    assert render_record(["not", "a", "record"])["failure"] == "a record must be an object, not list"  # type: ignore[arg-type]


def test_wrong_option_is_the_callers_error() -> None:
    with pytest.raises(ValueError, match="style"):
        render_record(_records()[0], style="no-such-style")


def test_dask_bag_on_a_local_cluster_renders_what_this_process_renders() -> None:
    records = _records()
    here = [render_record(r, style="footnotes") for r in records]
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        workers = client.run(os.getpid)
        assert len(workers) == 2 and os.getpid() not in workers.values()
        bag = db.from_sequence(records, npartitions=3).map(render_record, style="footnotes")
        there = bag.compute()
    assert there == here
    assert [r["failure"] is None for r in there] == [True] * 7 + [False] * 2
