"""check-dataset on hostile and unusual data (issue 46: G01, G03–G07, G24, G25, G27, F13 and the
"also seen" items): every input is read or refused with exit 2 and a message naming it, never a
traceback; nothing is dropped or merged; the report shows what was checked, at a cost bounded in
the number of groups."""

from __future__ import annotations

import bz2
import datetime
import decimal
import functools
import gzip
import json
import lzma
import os
import re
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import best_cpu, run_cli

from citerender.errors import CiterenderError
from citerender.evaluate.charts import label as chart_label
from citerender.evaluate.check_dataset import check_dataset
from citerender.evaluate.datasets import MAX_DEPTH, read_records
from citerender.evaluate.report import LISTED, write_report
from citerender.evaluate.results_file import read_results

S, D, E = "\ue200", "\ue202", "\ue201"
SOURCES = [{"id": "s1", "title": "T", "url": "https://a.example/", "lines": ["The fee is ten dollars."]}]


def answer(text: str = "The fee is twenty dollars.") -> str:
    return f"{text}{S}cite{D}s1{D}L1{E}"


def rec(rid: Any, model: str = "m", text: str = "The fee is twenty dollars.", **more: Any) -> dict[str, Any]:
    return {"id": rid, "model": model, "answer": answer(text), "sources": SOURCES, **more}


def jsonl(path: Path, records: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def no_traceback(r: Any) -> None:
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) <= 1, r.stderr


def refused(r: Any, *words: str) -> None:
    """Exit 2, one clear line naming the input, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    no_traceback(r)
    for w in words:
        assert w in r.stderr, r.stderr


# --------------------------------------------------------------------------- G01 labels as text


@pytest.mark.parametrize(
    "labels",
    [
        ["gpt-4o", "cost$$", "$\\x$"],  # the reproducer's
        ["$\\frac{1}{2}$", "a_b^c", "${", "100% \\\\ $x", "_hidden", "x" * 45, "中文模型", "😀 $model$"],
    ],
)
def test_group_labels_are_drawn_as_written(tmp_path: Path, labels: list[str]) -> None:
    data = jsonl(tmp_path / "d.jsonl", [rec(f"r{i}", m) for i, m in enumerate(labels)])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = run_cli(
            "check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--report", tmp_path / "p.html"
        )
    assert r.returncode == 0 and not r.stderr, r.stderr
    assert not [w for w in seen if "Glyph" in str(w.message)]  # the reader's fonts draw the text
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    svgs = "".join(re.findall(r"<svg.*?</svg>", page, re.S))
    texts = "".join(re.findall(r"<text[^>]*>(.*?)</text>", svgs, re.S))
    import html as h

    for label in labels:
        drawn = chart_label(f"model={label}")  # one line, shortened as the rates chart draws it
        assert h.escape(drawn, quote=False) in texts, (label, texts[:400])  # literally, never typeset
        assert h.escape(f"model={label}", quote=False) in page  # whole in the tables


def _parquet(path: Path, **columns: Any) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    base = {"id": pa.array(["a"]), "answer": pa.array([answer()]), "sources": pa.array([json.dumps(SOURCES)])}
    pq.write_table(pa.table({**base, **columns}), path)
    return path


def _columns() -> dict[str, Any]:
    import pyarrow as pa

    return {
        "timestamp": pa.array([datetime.datetime(2024, 1, 1, 12, 0)]),
        "timestamp_tz_ns": pa.array([datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC)], pa.timestamp("ns", "UTC")),
        "date": pa.array([datetime.date(2024, 1, 1)]),
        "time": pa.array([datetime.time(12, 30)]),
        "decimal": pa.array([decimal.Decimal("1.23")]),
        "binary": pa.array([b"\x00\xff"]),
        "duration": pa.array([datetime.timedelta(seconds=5)]),
        "nested": pa.array([[{"when": datetime.date(2020, 2, 2), "raw": b"ok"}]]),
        "map": pa.array([[("k", decimal.Decimal("2.5"))]], pa.map_(pa.string(), pa.decimal128(5, 2))),
        "dict": pa.array(["x"]).dictionary_encode(),
        "nothing": pa.array([None], pa.null()),
        "float_nan": pa.array([float("nan")]),
    }


@pytest.mark.parametrize("name", list(_columns()))
@pytest.mark.parametrize("out", ["r.jsonl", "r.json", "r.parquet"])
def test_every_parquet_column_type_passes_as_text(tmp_path: Path, name: str, out: str) -> None:
    data = _parquet(tmp_path / "d.parquet", **{name: _columns()[name]})
    r = run_cli("check-dataset", data, "-o", tmp_path / out, "--group-by", name)
    assert r.returncode == 0, r.stderr
    (result,) = read_results(tmp_path / out)
    assert result["failure"] is None and name in result["columns"]
    json.dumps(result, allow_nan=False)  # plain JSON through and through


def test_parquet_values_as_text() -> None:
    from citerender.evaluate.datasets import plain

    assert plain(datetime.datetime(2024, 1, 1, 12)) == "2024-01-01T12:00:00"
    assert plain(decimal.Decimal("1.230")) == "1.230"
    assert plain(b"caf\xc3\xa9") == "café" and plain(b"\x00\xff") == "base64:AP8="
    assert plain({1: float("inf")}) == {"1": "inf"}


def test_a_binary_answer_column_is_read_as_text(tmp_path: Path) -> None:
    import pyarrow as pa

    data = _parquet(tmp_path / "d.parquet", answer=pa.array([answer().encode()]))
    check_dataset(data, tmp_path / "r.jsonl")
    (result,) = read_results(tmp_path / "r.jsonl")
    assert result["failure"] is None and result["metrics"]["cited_claims"] == 1


@pytest.mark.parametrize("kind", ["text", "truncated", "empty", "csv"])
def test_a_file_that_is_not_parquet_is_an_input_error(tmp_path: Path, kind: str) -> None:
    bad = tmp_path / "bad.parquet"
    if kind == "truncated":
        whole = _parquet(tmp_path / "w.parquet").read_bytes()
        bad.write_bytes(whole[: len(whole) // 2])
    else:
        bad.write_bytes({"text": b"not parquet\n", "empty": b"", "csv": b"id,answer\na,b\n"}[kind])
    r = run_cli("check-dataset", bad, "-o", tmp_path / "r.jsonl")
    refused(r, "bad.parquet", "not a valid Parquet file")
    assert not (tmp_path / "r.jsonl").exists()  # nothing half-written


# --------------------------------------------------------------------------- G04 resume input


TAMPERED = [
    '{"id":"r0","metrics":{"support_rate":"abc"}}',
    '{"id":"r0","metrics":{"support_rate":-5}}',
    '{"id":"r0","metrics":{"support_rate":NaN}}',
    '{"id":"r0","metrics":{"support_rate":1e309}}',
    '{"id":"r0","metrics":[1,2]}',
    '{"id":"r0","diagnostics":[{"x":1}]}',
    '{"id":"r0","diagnostics":"abc"}',
    '{"id":"r0","diagnostics":[{"code":["x"]}]}',
    '{"id":{"a":1},"columns":"x"}',
]


def _good_results(tmp_path: Path, n: int = 4) -> tuple[Path, list[str]]:
    data = jsonl(tmp_path / "d.jsonl", [rec(f"r{i}", "m" if i % 2 else "n") for i in range(n)])
    check_dataset(data, tmp_path / "whole.jsonl", group_by=["model"])
    return data, (tmp_path / "whole.jsonl").read_text(encoding="utf-8").splitlines()


def _variants(line: str) -> list[str]:
    """The same result with one field made wrong in ways of our own."""
    good = json.loads(line)
    out = []
    for path, value in [
        (("metrics", "answers"), 5), (("metrics", "supported"), -1), (("metrics", "checked"), True),
        (("metrics", "support_rate"), 2.0), (("metrics", "support_rate"), None), (("metrics", "citation_recall"), "1"),
        (("columns",), ["model"]), (("claims",), [1]), (("failure",), 3), (("id",), None), (("id",), ""), (("row",), -2),
        (("diagnostics", 0), None), (("diagnostics", 0, "severity"), "fatal"), (("diagnostics", 0, "line"), "1"),
        (("claims", 0, "verdict"), 5), (("claims", 0, "score"), "abc"), (("claims", 0, "score"), 3.0),
        (("claims", 0, "relevant"), []), (("claims", 0, "span"), [9, 2]), (("claims", 0, "cited"), "s1"),
        (("metrics", "unsupported"), 0), (("metrics", "cited_claims"), 7), (("metrics", "bonus"), 1),
        (("extra",), 1),
    ]:  # fmt: skip
        r = json.loads(line)
        target = r
        for k in path[:-1]:
            target = target[k]
        if isinstance(target, list) and not target:
            continue
        target[path[-1]] = value
        out.append(json.dumps(r))
    out.append(json.dumps({k: v for k, v in good.items() if k != "metrics"}))  # a field missing
    out += ["[1, 2]", '"a result"', "null", "{not json", json.dumps({"id": "r1", "note": "a foreign line"})]
    return out


@pytest.mark.parametrize("where", [0, 2])
def test_a_tampered_results_line_is_an_error_naming_it(tmp_path: Path, where: int) -> None:
    data, lines = _good_results(tmp_path)
    for bad in [*TAMPERED, *_variants(lines[1])]:
        mixed = [*lines]
        mixed[where] = bad
        res = tmp_path / "res.jsonl"
        before = "".join(x + "\n" for x in mixed).encode()
        res.write_bytes(before)
        r = run_cli("check-dataset", data, "-o", res, "--group-by", "model")
        refused(r, f"res.jsonl:{where + 1}:", "not a result of check-dataset", "--restart")
        assert res.read_bytes() == before, bad  # the file is left as it was


def test_the_reproducers_lines_as_the_whole_file(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "d.jsonl", [rec("r0")])
    for bad in TAMPERED:
        (tmp_path / "res.jsonl").write_text(bad + "\n", encoding="utf-8")
        refused(run_cli("check-dataset", data, "-o", tmp_path / "res.jsonl"), "res.jsonl:1")
    r = run_cli("check-dataset", data, "-o", tmp_path / "res.jsonl", "--restart")  # the way out it names
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("fmt", ["json", "parquet"])
def test_a_tampered_json_or_parquet_results_file(tmp_path: Path, fmt: str) -> None:
    data, lines = _good_results(tmp_path)
    results = [json.loads(x) for x in lines]
    results[1]["metrics"]["support_rate"] = -5
    res = tmp_path / f"res.{fmt}"
    if fmt == "json":
        res.write_text(json.dumps(results), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist([{k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in r.items()} for r in results]), res)  # fmt: skip
    before = res.read_bytes()
    refused(run_cli("check-dataset", data, "-o", res), f"res.{fmt}", "2 not a result")
    assert res.read_bytes() == before


def test_every_result_we_write_reads_back(tmp_path: Path) -> None:
    """The check of a results line accepts every result check-dataset writes (the test suite's dataset)."""
    from test_check_dataset import dataset, write_jsonl

    data = write_jsonl(tmp_path / "d.jsonl", dataset(400, seed=11))
    check_dataset(data, tmp_path / "r.jsonl")
    assert len(list(read_results(tmp_path / "r.jsonl"))) == 400


def test_a_whole_last_line_without_its_newline_is_kept(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "d.jsonl", [rec(f"r{i}") for i in range(5)])
    check_dataset(data, tmp_path / "whole.jsonl")
    whole = (tmp_path / "whole.jsonl").read_bytes()
    lines = whole.splitlines(keepends=True)
    (tmp_path / "r.jsonl").write_bytes(b"".join(lines[:3])[:-1])  # killed before the third newline
    summary = check_dataset(data, tmp_path / "r.jsonl")
    assert summary.skipped == 3 and (tmp_path / "r.jsonl").read_bytes() == whole


# --------------------------------------------------------------------------- G05 ids shared across rows


def _shared(tmp_path: Path, ids: list[Any]) -> tuple[Path, list[dict[str, Any]]]:
    records = [
        rec(rid, model, f"[{model}-{k}] The fee is {'twenty' if k % 2 else 'thirty'} dollars.")
        for k, (rid, model) in enumerate(zip(ids, ["gpt", "claude"] * len(ids), strict=False))
    ]
    return jsonl(tmp_path / "d.jsonl", records), records


@pytest.mark.parametrize(
    "ids",
    [
        ["q0", "q0", "q1", "q1", "q2", "q2"],  # the reproducer's: question id x model
        ["a", "b", "a", "a", None, "row-5", "", "b"],  # repeats apart, missing ids, one that reads like ours
    ],
)
@pytest.mark.parametrize("out", ["r.jsonl", "r.json", "r.parquet"])
def test_shared_ids_lose_nothing_fresh_or_resumed(tmp_path: Path, ids: list[Any], out: str) -> None:
    data, records = _shared(tmp_path, ids)
    ext = out.split(".")[1]
    check_dataset(data, tmp_path / f"whole.{ext}", group_by=["model"])
    whole = list(read_results(tmp_path / f"whole.{ext}"))
    assert [r["row"] for r in whole] == list(range(1, len(records) + 1))
    assert [r["columns"]["model"] for r in whole] == [r["model"] for r in records]
    for cut in range(1, len(records)):  # a run killed after `cut` results, resumed
        part = tmp_path / f"part{cut}.{ext}"
        if ext == "jsonl":
            kept = (tmp_path / "whole.jsonl").read_text(encoding="utf-8").splitlines()[:cut]
            part.write_text("".join(x + "\n" for x in kept), encoding="utf-8")
        else:
            check_dataset(jsonl(tmp_path / f"d{cut}.jsonl", records[:cut]), part)
        summary = check_dataset(data, part, group_by=["model"])
        assert summary.skipped == cut and summary.checked == len(records) - cut
        assert list(read_results(part)) == whole


def test_each_row_of_a_shared_id_gets_its_own_page(tmp_path: Path) -> None:
    data, records = _shared(tmp_path, ["q0", "q0", "q1", "q1", "q0"])
    r = run_cli(
        "check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--report", tmp_path / "p.html"
    )
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'href="(\./p\.answers/[^"]+)"', page)
    assert len(hrefs) == len(set(hrefs)) == len(records)
    for href in hrefs:
        row = int(re.search(r"row(\d+)-", href).group(1))  # type: ignore[union-attr]
        shown = (tmp_path / href).read_text(encoding="utf-8")
        mine = f"[{records[row - 1]['model']}-{row - 1}]"
        assert mine in shown and all(f"-{k}]" not in shown for k in range(len(records)) if k != row - 1)


# --------------------------------------------------------------------------- G06 JSON not a list


@pytest.mark.parametrize(
    "doc",
    [
        {"data": [rec("a")]},  # a wrapper
        rec("a"),  # one record
        "just text",
        42,
        None,
        "",  # an empty file
    ],
)
def test_a_json_document_that_is_not_a_list_is_refused(tmp_path: Path, doc: Any) -> None:
    data = tmp_path / "d.json"
    data.write_text("" if doc == "" else "\n  " + json.dumps(doc), encoding="utf-8")
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl")
    refused(r, "d.json", "not a list of records")
    assert not (tmp_path / "r.jsonl").exists()


def test_an_empty_list_is_zero_answers(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text("[]", encoding="utf-8")
    r = run_cli("check-dataset", tmp_path / "d.json", "-o", tmp_path / "r.jsonl")
    assert r.returncode == 0 and "checked 0 answer(s)" in r.stdout


# --------------------------------------------------------------------------- G07 report pages


RESPONSE = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
    "content": [{"type": "text", "text": "The fee is ninety dollars.", "citations": [
        {"type": "web_search_result_location", "url": "https://a.example/", "title": "A",
         "cited_text": "The fee is ten dollars.", "encrypted_index": "x"}]}],
    "stop_reason": "end_turn",
}  # fmt: skip


def _report_links(page: Path) -> list[Path]:
    html = page.read_text(encoding="utf-8")
    return [page.parent / h for h in re.findall(r'href="(\./[^"#]+)"', html)]


def test_pages_show_the_checked_columns(tmp_path: Path) -> None:
    rows = [
        {"key": f"x{i}", "id": "shared", "answer": "OLD ANSWER (not checked).", "docs": SOURCES,
         "answer_v2": f"NEW ANSWER {i}: the fee is ninety dollars.{S}cite{D}s1{D}L1{E}", "sources": []}
        for i in range(3)
    ]  # fmt: skip
    data = jsonl(tmp_path / "d.jsonl", rows)
    r = run_cli(
        "check-dataset", data, "-o", tmp_path / "r.jsonl", "--report", tmp_path / "p.html",
        "--answer-col", "answer_v2", "--sources-col", "docs", "--id-col", "key",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    links = _report_links(tmp_path / "p.html")
    assert len(links) == 3 and all(f"x{i}" in str(links[i]) for i in range(3))
    for i, link in enumerate(links):
        shown = link.read_text(encoding="utf-8")
        assert f"NEW ANSWER {i}" in shown and "OLD ANSWER" not in shown
        assert "a.example" in shown and "rendered without sources" not in shown  # the docs column's sources


@pytest.mark.parametrize("as_text", [False, True])
def test_a_provider_response_row_gets_a_page(tmp_path: Path, as_text: bool) -> None:
    data = jsonl(tmp_path / "d.jsonl", [{"id": "y1", "answer": json.dumps(RESPONSE) if as_text else RESPONSE}])
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--report", tmp_path / "p.html")
    assert r.returncode == 0, r.stderr
    (link,) = _report_links(tmp_path / "p.html")
    assert "The fee is ninety dollars." in link.read_text(encoding="utf-8")


def test_no_link_leads_nowhere(tmp_path: Path) -> None:
    from test_check_dataset import dataset, write_jsonl

    data = write_jsonl(tmp_path / "d.jsonl", dataset(150, seed=12))
    run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--report", tmp_path / "p.html")
    links = _report_links(tmp_path / "p.html")
    assert links and all(link.is_file() for link in links)


# --------------------------------------------------------------------------- G24 no share of nothing


def test_no_share_when_no_claim_was_checked(tmp_path: Path) -> None:
    (tmp_path / "fails.py").write_text("def scorer(c, e):\n    raise RuntimeError('down')\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(answer() + "\n", encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    textless = tmp_path / "t.json"
    textless.write_text(json.dumps([{"id": "s1", "title": "T", "url": "https://a.example/"}]), encoding="utf-8")
    for sources, scorer in [("s.json", ["--scorer", "fails:scorer"]), ("t.json", [])]:
        base = ["check", tmp_path / "a.md", "-s", tmp_path / sources, "--report", *scorer]
        text = run_cli(*base, path=str(tmp_path)).stdout
        assert "no claim could be checked" in text and "100%" not in text.split("supported:")[-1]
        data = json.loads(run_cli(*base, "--format", "json", path=str(tmp_path)).stdout)
        shares = [v for k, v in _walk(data) if k == "supported_share"]
        assert shares == [None], data


def _walk(data: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += [(k, v), *_walk(v)]
    elif isinstance(data, list):
        for v in data:
            out += _walk(v)
    return out


def test_a_share_still_when_claims_were_checked() -> None:
    from citerender import load_sources  # noqa: F401 - the public path
    from citerender.model.evidence import support_report
    from citerender.sources.model import registry_from_data

    report = support_report(answer("The fee is ten dollars."), registry_from_data(SOURCES))
    assert report.supported_share == 1.0 and report.to_dict()["supported_share"] == 1.0


# --------------------------------------------------------------------------- F13 what the scorer returned


@pytest.mark.parametrize(
    "returns,shown",
    [("float('nan')", "nan"), ("float('inf')", "inf"), ("-0.5", "-0.5"), ("1.5", "1.5"), ("'0.9'", "'0.9'"),
     ("None", "None"), ("[0.9]", "[0.9]")],
)  # fmt: skip
def test_a_scorer_s_bad_value_is_named(tmp_path: Path, returns: str, shown: str) -> None:
    mod = f"bad_{abs(hash(returns))}"
    (tmp_path / f"{mod}.py").write_text(f"def scorer(c, e):\n    return {returns}\n", encoding="utf-8")
    (tmp_path / "a.md").write_text(answer("The fee is ten dollars.") + "\n", encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    r = run_cli("check", tmp_path / "a.md", "-s", tmp_path / "s.json", "--scorer", f"{mod}:scorer", path=str(tmp_path))
    line = next(x for x in r.stdout.splitlines() if "CR407" in x)
    assert f"{mod}:scorer" in line and f"returned {shown}," in line, line


def test_numpy_scalars_are_numbers(tmp_path: Path) -> None:
    (tmp_path / "np_scorer.py").write_text(
        "import numpy\ndef scorer(c, e):\n    return numpy.float32(0.9)\n", encoding="utf-8"
    )
    (tmp_path / "a.md").write_text(answer("The fee is ten dollars.") + "\n", encoding="utf-8")
    (tmp_path / "s.json").write_text(json.dumps(SOURCES), encoding="utf-8")
    r = run_cli(
        "check", tmp_path / "a.md", "-s", tmp_path / "s.json", "--scorer", "np_scorer:scorer", path=str(tmp_path)
    )
    assert "CR407" not in r.stdout, r.stdout


# --------------------------------------------------------------------------- G25 encodings


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_a_gzipped_dataset_is_read(tmp_path: Path, fmt: str) -> None:
    records = [rec(f"r{i}") for i in range(3)]
    text = json.dumps(records) if fmt == "json" else "".join(json.dumps(r) + "\n" for r in records)
    plain_file = tmp_path / f"d.{fmt}"
    plain_file.write_text(text, encoding="utf-8")
    for name in (f"d.{fmt}.gz", f"other.{fmt}"):  # by its name, and by its bytes under a plain name
        (tmp_path / name).write_bytes(gzip.compress(text.encode()))
        check_dataset(tmp_path / name, tmp_path / f"{name}.jsonl")
        check_dataset(plain_file, tmp_path / "plain.jsonl")
        assert list(read_results(tmp_path / f"{name}.jsonl")) == list(read_results(tmp_path / "plain.jsonl"))


@pytest.mark.parametrize(
    "kind,pack",
    [("bzip2", bz2.compress), ("xz", lzma.compress), ("zip", None), ("gzip, damaged", None)],
)
def test_other_compressions_are_refused(tmp_path: Path, kind: str, pack: Callable[[bytes], bytes] | None) -> None:
    raw = (json.dumps(rec("a")) + "\n").encode()
    data = tmp_path / "d.jsonl"
    if kind == "zip":
        with zipfile.ZipFile(data, "w") as z:
            z.writestr("d.jsonl", raw)
    elif pack is None:
        data.write_bytes(gzip.compress(raw * 50)[:40])
    else:
        data.write_bytes(pack(raw))
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl")
    refused(r, "d.jsonl")
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("fmt", ["jsonl", "json"])
@pytest.mark.parametrize("encoding", ["latin-1", "cp1252", "utf-16"])
def test_a_dataset_not_in_utf8_is_an_input_error(tmp_path: Path, fmt: str, encoding: str) -> None:
    lines = [json.dumps(rec("a")), '{"id": "b", "answer": "Le café coûte vingt euros."}']
    text = "[" + ",\n".join(lines) + "]" if fmt == "json" else "".join(x + "\n" for x in lines)
    (tmp_path / f"d.{fmt}").write_bytes(text.encode(encoding))
    r = run_cli("check-dataset", tmp_path / f"d.{fmt}", "-o", tmp_path / "r.jsonl")
    refused(r, f"d.{fmt}", "not UTF-8")
    if encoding != "utf-16":
        assert f"d.{fmt}:2:" in r.stderr  # the line holding the first bad byte
    assert not (tmp_path / "r.jsonl").exists()


def test_a_utf8_byte_order_mark_is_fine(tmp_path: Path) -> None:
    (tmp_path / "d.jsonl").write_bytes(b"\xef\xbb\xbf" + (json.dumps(rec("a")) + "\n").encode())
    check_dataset(tmp_path / "d.jsonl", tmp_path / "r.jsonl")
    (result,) = read_results(tmp_path / "r.jsonl")
    assert result["failure"] is None and result["id"] == "a"


# --------------------------------------------------------------------------- G27 scorer and jobs


SCORERS = {
    "lock_obj": "import threading\nclass NLI:\n    def __init__(self):\n        self.lock = threading.Lock()\n"
    "    def score(self, claim, evidence):\n        with self.lock:\n            return 0.9 if 'ten' in claim else 0.2\n"
    "scorer = NLI()\n",
    "lock_cls": "import threading\nclass scorer:\n    def __init__(self):\n        self.lock = threading.Lock()\n"
    "    def score(self, claim, evidence):\n        return 0.9 if 'ten' in claim else 0.2\n",
    "lam": "import threading\n_lock = threading.Lock()\nscorer = lambda claim, evidence: 0.9 if 'ten' in claim else 0.2\n",
}


@pytest.mark.parametrize("mod", list(SCORERS))
def test_a_scorer_works_with_any_jobs(tmp_path: Path, mod: str) -> None:
    (tmp_path / f"g27_{mod}.py").write_text(SCORERS[mod], encoding="utf-8")
    data = jsonl(
        tmp_path / "d.jsonl", [rec(f"r{i}", text=("The fee is ten dollars." if i % 3 else "Nine.")) for i in range(21)]
    )
    outs = []
    for jobs in (1, 2):
        out = tmp_path / f"r{jobs}.jsonl"
        r = run_cli(
            "check-dataset", data, "-o", out, "--scorer", f"g27_{mod}:scorer", "--jobs", jobs, path=str(tmp_path)
        )
        assert r.returncode == 0, r.stderr
        no_traceback(r)
        assert f"g27_{mod}:scorer" in r.stdout  # the judge named
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    scores = {c["score"] for x in read_results(tmp_path / "r2.jsonl") for c in x["claims"]}
    assert scores == {0.9, 0.2}  # the scorer ran in the workers


def test_an_unpicklable_scorer_object_with_jobs_is_a_clear_error(tmp_path: Path) -> None:
    import threading

    class Held:
        def __init__(self) -> None:
            self.lock = threading.Lock()

        def score(self, claim: str, evidence: str) -> float:
            return 0.9

    data = jsonl(tmp_path / "d.jsonl", [rec("a")])
    with pytest.raises(CiterenderError, match="MODULE:NAME"):
        check_dataset(data, tmp_path / "r.jsonl", jobs=2, scorer=Held())
    assert not (tmp_path / "r.jsonl").exists()
    check_dataset(data, tmp_path / "r.jsonl", jobs=1, scorer=Held())  # one job needs no pickling


# --------------------------------------------------------------------------- G02: one deep record


@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 600, 100_000])
@pytest.mark.parametrize("fmt", ["jsonl", "json"])
def test_a_deeply_nested_record_fails_alone_and_a_resume_gets_past_it(tmp_path: Path, depth: int, fmt: str) -> None:
    deep = "[" * depth + "]" * depth
    lines = [json.dumps(rec("a")), f'{{"id": "deep", "answer": "x", "meta": {deep}}}', json.dumps(rec("c"))]
    data = tmp_path / f"d.{fmt}"
    data.write_text("\n".join(lines) + "\n" if fmt == "jsonl" else "[" + ",\n".join(lines) + "]", encoding="utf-8")
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl")
    assert r.returncode == 1, r.stderr  # a record failed, not the run
    no_traceback(r)
    results = list(read_results(tmp_path / "r.jsonl"))
    assert [x["failure"] is None for x in results] == [True, False, True]
    assert "nested too deeply" in results[1]["failure"] or "invalid JSON" in results[1]["failure"]
    again = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl")
    assert "3 already in the results" in again.stdout, again.stdout + again.stderr


def test_a_record_that_raises_citerender_error_fails_alone(tmp_path: Path) -> None:
    bad_sources = [{"id": "bad id!", "title": "T", "lines": ["x"]}]
    data = jsonl(tmp_path / "d.jsonl", [rec("a"), {**rec("b"), "sources": bad_sources}, rec("c")])
    summary = check_dataset(data, tmp_path / "r.jsonl")
    assert summary.checked == 3 and summary.overall.failures == 1
    assert check_dataset(data, tmp_path / "r.jsonl").skipped == 3


# --------------------------------------------------------------------------- also seen


@pytest.mark.parametrize("brk", ["\n", "\r", "\r\n", "\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_a_line_break_in_a_group_name_stays_on_its_line(tmp_path: Path, brk: str) -> None:
    data = jsonl(tmp_path / "d.jsonl", [rec("a", f"evil{brk}checked 999 answer(s)"), rec("b", "fine")])
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()  # str.splitlines splits at every one of these
    assert len(lines) == 3 + 3 and sum("checked" in x for x in lines) == 2
    assert not any(x.startswith("checked 999") for x in lines)


def _spellings(tmp_path: Path, data: Path) -> list[str]:
    os.symlink(data, tmp_path / "link.jsonl")
    os.link(data, tmp_path / "hard.jsonl")
    (tmp_path / "sub").mkdir()
    rel = os.path.relpath(data)
    return [str(data), rel, "./" + rel, str(tmp_path / "sub" / ".." / data.name), str(tmp_path / "link.jsonl"),
            str(tmp_path / "hard.jsonl"), str(tmp_path / "." / data.name)]  # fmt: skip


@pytest.mark.parametrize("opt", ["--summary", "--report", "-o"])
def test_no_output_overwrites_the_dataset(tmp_path: Path, opt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    data = jsonl(tmp_path / "d.jsonl", [rec("a")])
    before = data.read_bytes()
    for spelling in _spellings(tmp_path, data):
        args = ["check-dataset", data, "-o", tmp_path / "r.jsonl"]
        args = [*args[:2], opt, spelling] if opt == "-o" else [*args, opt, spelling]
        r = run_cli(*args)
        refused(r, "the dataset itself")
        assert data.read_bytes() == before, spelling
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--summary", tmp_path / "r.jsonl")
    refused(r, "the same file")


# --------------------------------------------------------------------------- the report's cost


def test_the_report_costs_little_more_with_many_groups(tmp_path: Path) -> None:
    answers = 240
    times = []
    for groups in (4, 240):
        data = jsonl(tmp_path / f"d{groups}.jsonl", [rec(f"r{i}", f"model {i % groups}\n$x$") for i in range(answers)])
        summary = check_dataset(data, tmp_path / f"r{groups}.jsonl", group_by=["model"])
        times.append(best_cpu(functools.partial(write_report, summary, tmp_path / f"p{groups}.html")))
    page = (tmp_path / "p240.html").read_text(encoding="utf-8")
    assert f"the other {240 - LISTED:,} groups, together" in page and "of 240)" in page
    assert page.count('<tr><th scope="row" class="citerender-name">model=') == LISTED
    assert times[1] <= 3 * times[0], times  # 60 times the groups; at most 3 times the CPU


def test_read_records_streams(tmp_path: Path) -> None:
    data = jsonl(tmp_path / "d.jsonl", [rec(f"r{i}") for i in range(3)])
    assert [r["id"] for r in read_records(data)] == ["r0", "r1", "r2"]


@pytest.mark.parametrize("text", ['[{"id": "a", "answer": "x"}', '[{"id": "a", "answer": "x"}] junk', "[1, 2,]"])
def test_json_cut_short_or_trailed_is_refused_before_anything_is_written(tmp_path: Path, text: str) -> None:
    (tmp_path / "d.json").write_text(text, encoding="utf-8")
    r = run_cli("check-dataset", tmp_path / "d.json", "-o", tmp_path / "r.jsonl")
    refused(r, "d.json", "invalid JSON")
    assert not (tmp_path / "r.jsonl").exists()


def test_a_json_dataset_with_a_byte_order_mark(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_bytes(b"\xef\xbb\xbf" + json.dumps([rec("a")]).encode())
    check_dataset(tmp_path / "d.json", tmp_path / "r.jsonl")
    assert [r["id"] for r in read_results(tmp_path / "r.jsonl")] == ["a"]


@pytest.mark.parametrize("name", ["d.jsonl.xz", "d.json.bz2", "d.jsonl.zst", "d.json.zip", "d.parquet.gz"])
def test_a_compressed_name_says_so(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(b"x")
    refused(run_cli("check-dataset", tmp_path / name, "-o", tmp_path / "r.jsonl"), name, "compressed")
    refused(run_cli("check-dataset", tmp_path / "d.jsonl", "-o", tmp_path / "r.jsonl.gz"), "uncompressed")


@pytest.mark.parametrize("items", [[1, 2], ["an answer?"], [[rec("a")]], [rec("a"), None, rec("b")]])
def test_a_json_item_that_is_not_a_record_is_that_record_s_failure(tmp_path: Path, items: list[Any]) -> None:
    (tmp_path / "d.json").write_text(json.dumps(items), encoding="utf-8")
    r = run_cli("check-dataset", tmp_path / "d.json", "-o", tmp_path / "r.jsonl")
    assert r.returncode == 1, r.stderr  # those records failed, the others were checked
    results = list(read_results(tmp_path / "r.jsonl"))
    assert len(results) == len(items)
    for item, result in zip(items, results, strict=True):
        assert (result["failure"] is None) == isinstance(item, dict)
        assert isinstance(item, dict) or "not an object" in result["failure"]
