"""The Dask, Ray and Spark recipes of ``docs/scale.md``, run as printed: each block is taken from
the page, its placeholders replaced (storage URLs by local paths, the cluster by a local one: each
replacement must find its placeholder) and run as a script in a fresh interpreter, on the fixture
dataset of ``tests/fixtures/engines`` (good answers, wrong ones, a provider response, records that
cannot be checked, a line that is not JSON).

What a user sees is checked: every record's result equals the one ``citerender check-dataset``
writes for it (less its row number), in the dataset's order; the summary equals the CLI's; the job
exits 1 after writing every result and names the failed records (a job whose records all failed
too); each record is checked exactly once (counted by a ``sitecustomize`` that wraps
``check_record`` in every process of the job, workers included); no process of the job outlives it;
and without the engine installed a recipe stops before any work, naming the extra.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_cli

from citerender.evaluate.engines import FAILED_NAMED, Tally
from citerender.evaluate.records import check_line, check_row
from citerender.publish.records import render_record

SCALE = ROOT / "docs" / "scale.md"
FIXTURE = ROOT / "tests" / "fixtures" / "engines" / "answers.jsonl"
ENGINES = ("dask", "ray", "spark")

#: wraps check_record and render_record in every Python process of a job (driver and workers) to
#: count their calls
COUNTER = """
import functools, os
if os.environ.get("CITERENDER_TEST_CALLS"):
    import citerender.evaluate.records, citerender.publish.records

    def counted(module, name):
        real = getattr(module, name)

        @functools.wraps(real)
        def count(*args, **kwargs):
            with open(os.environ["CITERENDER_TEST_CALLS"], "a", encoding="utf-8") as f:
                f.write(f"{name} {os.getpid()}\\n")
            return real(*args, **kwargs)

        setattr(module, name, count)

    counted(citerender.evaluate.records, "check_record")
    counted(citerender.publish.records, "render_record")
"""


def recipe(engine: str) -> str:
    """The Python block under ``### Dask`` (``Ray``, ``Spark``) of the checking section, or for
    ``render-dask`` the one under ``## Dask`` of the rendering part, as printed."""
    text = SCALE.read_text(encoding="utf-8")
    if engine == "render-dask":
        part = text.split("\n# Checking datasets", 1)[0].split("\n## Dask\n", 1)[1].split("\n## ", 1)[0]
    else:
        section = text.split("\n## Dask, Ray, Spark\n", 1)[1].split("\n## ", 1)[0]
        parts = {p.split("\n", 1)[0].strip().lower(): p for p in re.split(r"(?m)^### ", section)[1:]}
        assert engine in parts, f"no ### {engine} recipe in docs/scale.md"
        part = parts[engine]
    blocks = re.findall(r"(?ms)^```python\n(.*?)^```", part)
    assert len(blocks) == 1, f"one Python block for {engine}"
    return str(blocks[0])


def replaced(code: str, substitutions: dict[str, str]) -> str:
    for placeholder, value in substitutions.items():
        assert placeholder in code, f"the recipe no longer holds {placeholder!r}"
        code = code.replace(placeholder, value)
    return code


def records_of(lines: list[str]) -> list[dict[str, Any]]:
    """The lines that are records (JSON objects), as a table holds them: a provider response as
    its JSON text, since a column holds one type."""
    out = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if (
            isinstance(item, dict)
            and isinstance(item.get("sources"), list | None)
            and isinstance(item.get("answer"), str | dict | None)
        ):
            if isinstance(item.get("answer"), dict):
                item["answer"] = json.dumps(item["answer"])
            out.append(item)
    return out


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> None:
    import datetime

    import pyarrow as pa
    import pyarrow.parquet as pq

    for k, row in enumerate(rows):  # a date column: plain JSON (ISO 8601) in both readers
        row["asked"] = datetime.date(2026, 1, 1 + k % 28)
    pq.write_table(pa.Table.from_pylist(rows), path)


def cli_results(data: Path, tmp: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``check-dataset``'s results (row numbers dropped; an unreadable line's failure as a record's
    own, without the line number an engine cannot know) and its summary's overall measures."""
    out, summary = tmp / f"cli-{data.stem}.jsonl", tmp / f"cli-{data.stem}.summary.json"
    r = run_cli("check-dataset", data, "-o", out, "--summary", summary)
    assert r.returncode == 1, r.stderr  # the fixture's failed records
    results = []
    for line in out.read_text(encoding="utf-8").splitlines():
        result = json.loads(line)
        del result["row"]
        m = re.match(r"line \d+: (.*)", result["failure"] or "", re.S)
        if m and result["id"].startswith("row-"):
            result["id"], result["failure"] = None, m.group(1)
        results.append(unread(result))
    return results, json.loads(summary.read_text(encoding="utf-8"))["overall"]


def unread(result: dict[str, Any]) -> dict[str, Any]:
    """A line that is not JSON fails as "invalid JSON (why)": the parser's why depends on whether
    the line still ends in its newline (the CLI's does, Ray's does not), so only the what is compared."""
    if (result["failure"] or "").startswith("invalid JSON ("):
        return {**result, "failure": "invalid JSON"}
    return result


def results_in(paths: Iterator[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for p in paths for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]


def job_env(tmp: Path, token: str, *, blocked: str | None = None) -> dict[str, str]:
    """The job's environment: check_record counted in every process, a token to find its processes."""
    counter = tmp / "counter"
    counter.mkdir(exist_ok=True)
    (counter / "sitecustomize.py").write_text(COUNTER, encoding="utf-8")
    paths = [str(counter)]
    if blocked:  # the engine's package cannot be imported, as when it is not installed
        (tmp / "blocked" / blocked).mkdir(parents=True)
        (tmp / "blocked" / blocked / "__init__.py").write_text(f"raise ImportError('{blocked} is blocked')\n")
        paths.insert(0, str(tmp / "blocked"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RAY_ADDRESS", "SPARK_HOME")}
    env.update(
        PYTHONPATH=os.pathsep.join(paths),
        CITERENDER_TEST_CALLS=str(tmp / "calls.log"),
        CITERENDER_TEST_RUN=token,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        PYSPARK_SUBMIT_ARGS="--master local[2] --conf spark.ui.enabled=false pyspark-shell",
    )
    return env


def processes_with(token: str) -> list[str]:
    """The processes whose environment holds ``token``: the job's, wherever they were started."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if token.encode() in (proc / "environ").read_bytes():
                    cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ")[:120]
                    found.append(f"{proc.name}: {cmdline!r}")
            except OSError:  # gone, or not ours to read
                continue
    return found


def run_recipe(
    engine: str, tmp: Path, substitutions: dict[str, str], *, blocked: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The recipe run as a script in ``tmp``; afterwards, no process of it may be left (10 s)."""
    script = tmp / f"{engine}_recipe.py"
    script.write_text(replaced(recipe(engine), substitutions), encoding="utf-8")
    token = uuid.uuid4().hex
    env = job_env(tmp, token, blocked=blocked)
    ray_tmp = tempfile.mkdtemp(prefix="cr-ray-", dir="/tmp")  # Ray's sockets want a short path
    env["RAY_TMPDIR"] = ray_tmp
    try:
        r = subprocess.run([sys.executable, script.name], cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
        deadline = time.monotonic() + 10
        while (left := processes_with(token)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, f"{engine}: processes left behind: {left}"
    finally:
        shutil.rmtree(ray_tmp, ignore_errors=True)
    return r


def calls(tmp: Path, name: str = "check_record") -> int:
    """How many times ``name`` was called, in every process of the job."""
    log = tmp / "calls.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return sum(1 for line in lines if line.split()[0] == name)


@pytest.fixture
def lines() -> list[str]:
    return FIXTURE.read_text(encoding="utf-8").splitlines()


def jsonl_dataset(tmp: Path, lines: list[str]) -> Path:
    """The lines as one file for the CLI and as two for an engine (two partitions): tmp/answers/."""
    (tmp / "answers").mkdir()
    half = len(lines) // 2
    (tmp / "answers" / "part-0.jsonl").write_text("\n".join(lines[:half]) + "\n", encoding="utf-8")
    (tmp / "answers" / "part-1.jsonl").write_text("\n".join(lines[half:]) + "\n", encoding="utf-8")
    whole = tmp / "answers.jsonl"
    whole.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return whole


def substitutions(engine: str, tmp: Path, scheduler: str = "") -> dict[str, str]:
    return {
        "render-dask": {
            "tcp://scheduler-address:8786": scheduler,
            "s3://archive/answers/*.jsonl": f"{tmp}/answers/*.jsonl",
            "s3://site/pages/*.jsonl": f"{tmp}/pages/*.jsonl",
        },
        "dask": {
            "tcp://scheduler-address:8786": scheduler,
            "s3://evals/answers/*.jsonl": f"{tmp}/answers/*.jsonl",
            "s3://evals/results/*.jsonl": f"{tmp}/results/*.jsonl",
        },
        "ray": {
            'ray.init(address="auto")': "ray.init(num_cpus=2, include_dashboard=False)",
            "s3://evals/answers/": f"{tmp}/answers/",
        },
        "spark": {
            "s3://evals/answers.parquet": f"{tmp}/answers.parquet",
            "s3://evals/results/": f"{tmp}/results/",
        },
    }[engine]


def engine_results(engine: str, tmp: Path) -> list[dict[str, Any]]:
    if engine == "ray":
        return results_in(iter([tmp / "results.jsonl"]))
    return results_in(iter(sorted((tmp / "results").glob("*.jsonl" if engine == "dask" else "part-*"))))


def run_engine(engine: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> subprocess.CompletedProcess[str]:
    """The recipe run; Dask's on a local cluster of two worker processes whose address replaces
    the scheduler's (its workers count their calls too)."""
    if not engine.endswith("dask"):
        return run_recipe(engine, tmp, substitutions(engine, tmp))
    from distributed import LocalCluster

    env = job_env(tmp, "dask-cluster")
    for key in ("PYTHONPATH", "CITERENDER_TEST_CALLS"):
        monkeypatch.setenv(key, env[key])  # the workers start with it: their check_record counted
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        return run_recipe(engine, tmp, substitutions(engine, tmp, cluster.scheduler_address))


@pytest.mark.engines
@pytest.mark.parametrize("engine", ENGINES)
def test_the_recipe_writes_what_check_dataset_writes_and_fails_loudly(
    engine: str, tmp_path: Path, lines: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine == "spark":  # a table: the rows a Parquet file can hold, with a date column
        data = tmp_path / "answers.parquet"
        write_parquet(data, records_of(lines))
    else:
        data = jsonl_dataset(tmp_path, lines)
    expected, overall = cli_results(data, tmp_path)
    failed = [r for r in expected if r["failure"]]
    assert len(expected) > 20 and 2 <= len(failed) < len(expected)

    r = run_engine(engine, tmp_path, monkeypatch)

    assert r.returncode == 1, r.stderr[-3000:]
    got = engine_results(engine, tmp_path)
    assert [unread(g) for g in got] == expected  # every record, in the dataset's order, the CLI's result
    assert json.loads((tmp_path / "summary.json").read_text(encoding="utf-8")) == overall
    said = r.stderr
    assert f"{len(failed)} of {len(expected)} records failed" in said, said[-3000:]
    for result in failed:
        assert f"{result['id'] or '(no id)'}: {result['failure']}" in said
    assert "Traceback" not in said
    checked = sum(1 for line in lines if line.strip()) - (2 if engine != "spark" else 0)  # not JSON objects
    assert calls(tmp_path) == (len(expected) if engine == "spark" else checked)  # each record checked once


@pytest.mark.engines
# Dask only: the failures are counted by the one Tally every recipe uses (merged in any order: a test
# below), and each engine's run above already fails on its failed records; Ray's and Spark's start-up
# (a JVM) would double the module's time in the default run for no other path
@pytest.mark.parametrize("engine", ["dask"])
def test_a_job_whose_records_all_failed_is_no_success(
    engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = [
        json.dumps({"id": "no-answer-2", "model": "m", "sources": None}),
        json.dumps({"id": "no-answer-3", "model": "m", "answer": None, "sources": None}),
        json.dumps({"id": "no-answer-4", "model": "m", "answer": None}),
    ]
    if engine == "spark":
        write_parquet(tmp_path / "answers.parquet", records_of(bad))
    else:
        jsonl_dataset(tmp_path, [*bad, "{not json"])
    r = run_engine(engine, tmp_path, monkeypatch)
    n = 3 if engine == "spark" else 4
    assert r.returncode == 1, r.stderr[-3000:]
    assert f"{n} of {n} records failed" in r.stderr and "no-answer-3: the record has no 'answer'" in r.stderr
    got = engine_results(engine, tmp_path)
    assert len(got) == n and all(g["failure"] for g in got)  # every result written all the same


@pytest.mark.parametrize("engine", ENGINES)
def test_without_the_engine_the_recipe_stops_before_any_work(engine: str, tmp_path: Path, lines: list[str]) -> None:
    jsonl_dataset(tmp_path, lines)
    package = {"dask": "distributed", "ray": "ray", "spark": "pyspark"}[engine]
    r = run_recipe(engine, tmp_path, substitutions(engine, tmp_path, "tcp://127.0.0.1:1"), blocked=package)
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr, r.stderr
    assert f"citerender[{engine}]" in r.stderr and f"pip install -e '.[{engine}]'" in r.stderr, r.stderr
    assert not (tmp_path / "summary.json").exists() and not (tmp_path / "results").exists()
    assert not (tmp_path / "results.jsonl").exists() and calls(tmp_path) == 0


def test_check_line_reads_a_line_as_check_dataset_does(tmp_path: Path, lines: list[str]) -> None:
    """Without an engine: every line's result is the CLI's (less the row), bytes or text alike."""
    expected, _ = cli_results(jsonl_dataset(tmp_path, lines), tmp_path)
    got = [check_line(line.encode() if k % 2 else line) for k, line in enumerate(lines) if line.strip()]
    assert [unread(g) for g in got] == expected
    assert check_line('{"id": 7, "answer": "Hi."}')["id"] == "7"  # an id as text, as check-dataset writes it
    assert check_line("\ufeff" + lines[0])["id"] == "q1-model-a-0"
    deep = '{"id": "deep", "answer": ' + "[" * 300 + "]" * 300 + "}"
    assert check_line(deep)["id"] == "deep" and "nested too deeply" in check_line(deep)["failure"]
    assert check_line(b"\xff\xfe")["failure"].startswith("invalid JSON")


def test_check_row_makes_a_tables_values_plain_json() -> None:
    import datetime

    row = json.loads(FIXTURE.read_text(encoding="utf-8").splitlines()[0])
    result = check_row({**row, "asked": datetime.date(2026, 1, 5), "raw": b"\xff"})
    assert result["failure"] is None and result["columns"]["asked"] == "2026-01-05"
    assert result["columns"]["raw"] == "base64:/w=="
    json.dumps(result)  # always JSON, so an engine can write it


def test_tallies_merge_in_any_order_to_one_pass(tmp_path: Path, lines: list[str]) -> None:
    results = [check_line(line) for line in lines if line.strip()]
    whole = Tally.of(results)
    parts = [Tally.of(results[k : k + 4]) for k in range(0, len(results), 4)]
    merged = Tally.total(reversed(parts))
    assert merged.totals.summary() == whole.totals.summary()
    assert (
        (merged.records, merged.failed, merged.named)
        == (whole.records, whole.failed, whole.named)
        == (32, 6, whole.named)
    )
    said = merged.failures()
    assert said.startswith("6 of 32 records failed") and "(no id): not an object" in said
    assert "bad-sources-1: record bad-sources-1" in said
    assert Tally.of(r for r in results if not r["failure"]).failures() == ""
    many = Tally.of({"id": f"x{k:03}", "failure": "why"} for k in range(FAILED_NAMED + 5))
    assert len(many.named) == FAILED_NAMED and many.failures().endswith("… and 5 more")


@pytest.mark.engines
def test_the_dask_rendering_recipe_renders_each_answer_once_and_names_the_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handbook = ROOT / "examples" / "handbook"
    answer = (handbook / "answer.md").read_text(encoding="utf-8")
    sources = json.loads((handbook / "answer.sources.json").read_text(encoding="utf-8"))
    records: list[dict[str, Any]] = [
        *({"id": f"a{i}", "answer": answer, "sources": sources, "title": f"Answer {i}"} for i in range(6)),
        {"id": "no-sources", "answer": "Renewals are due in June.\ue200cite\ue202turn0file0\ue201"},
        {"id": "bad-sources", "answer": "text", "sources": {"sources": "not a list"}},
        {"id": "no-answer"},
    ]
    jsonl_dataset(tmp_path, [json.dumps(r) for r in records])
    expected = [render_record(r, style="footnotes", standalone=True) for r in records]

    r = run_engine("render-dask", tmp_path, monkeypatch)

    assert r.returncode == 1, r.stderr[-3000:]
    assert results_in(iter(sorted((tmp_path / "pages").glob("*.jsonl")))) == expected
    assert "2 of 9 records failed" in r.stderr and "Traceback" not in r.stderr
    for page in expected[-2:]:
        assert f"{page['id']}: {page['failure']}" in r.stderr
    assert calls(tmp_path, "render_record") == len(records)  # each answer rendered once


def test_without_java_the_spark_recipe_stops_before_any_work(tmp_path: Path) -> None:
    """PySpark starts a Java runtime: without one, the recipe says so instead of a Py4J traceback."""
    script = tmp_path / "spark_recipe.py"
    script.write_text(replaced(recipe("spark"), substitutions("spark", tmp_path)), encoding="utf-8")
    env = {k: v for k, v in job_env(tmp_path, uuid.uuid4().hex).items() if k != "JAVA_HOME"}
    env["PATH"] = str(tmp_path / "no-java")
    r = subprocess.run(
        [sys.executable, script.name], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "needs Java 17 or later" in r.stderr and "default-jre-headless" in r.stderr, r.stderr
    assert not (tmp_path / "results").exists() and not (tmp_path / "summary.json").exists()
