"""Optional extras fail first and say which extra: without the extra's package, each command that
needs it stops before doing any work (nothing checked, printed or written), exits non-zero without a
traceback, and names the extra.

The package is taken away for real: each command runs in a fresh interpreter whose ``PYTHONPATH``
holds a module of that name that raises ``ImportError`` when imported (as a missing package does),
shadowing the installed one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT

S, D, E = "\ue200", "\ue202", "\ue201"
SOURCES = [{"id": "s1", "title": "Handbook", "lines": ["Employees may work remotely up to three days per week."]}]
ANSWER = f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L1{E}"


def without(tmp_path: Path, *packages: str) -> dict[str, str]:
    """An environment in which ``packages`` cannot be imported."""
    blocker = tmp_path / "blocked"
    for name in packages:
        (blocker / name).mkdir(parents=True, exist_ok=True)
        (blocker / name / "__init__.py").write_text(
            f"raise ImportError('{name} is blocked by tests/test_extras.py')\n", encoding="utf-8"
        )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(blocker)
    return env


def run(env: dict[str, str], *args: str, cwd: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "citerender.cli", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    return r, time.perf_counter() - start


def startup(env: dict[str, str], cwd: Path) -> float:
    """How long the program takes to start and stop (``--version``)."""
    return min(run(env, "--version", cwd=cwd)[1] for _ in range(2))


def assert_names_the_extra(r: subprocess.CompletedProcess[str], extra: str) -> None:
    said = r.stdout + r.stderr
    assert r.returncode != 0, said
    assert "Traceback" not in said, said
    assert f"citerender[{extra}]" in r.stderr and f"pip install -e '.[{extra}]'" in r.stderr, said
    assert "pip install citerender" not in said and "pip install 'citerender" not in said


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """2,000 answers: enough that checking them takes far longer than starting the program."""
    path = tmp_path / "answers.jsonl"
    rows = ({"id": f"a{i}", "answer": ANSWER, "sources": SOURCES, "model": f"m{i % 3}"} for i in range(2000))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_report_without_matplotlib_stops_before_checking(tmp_path: Path, dataset: Path) -> None:
    env = without(tmp_path, "matplotlib")
    r, took = run(env, "check-dataset", str(dataset), "-o", "results.jsonl", "--report", "report.html", cwd=tmp_path)
    assert_names_the_extra(r, "report")
    assert not (tmp_path / "results.jsonl").exists() and not (tmp_path / "report.html").exists()
    assert "checked" not in r.stdout and not r.stdout.strip()
    assert took < startup(env, tmp_path) + 1.5, took


@pytest.mark.parametrize("where", ["dataset", "results"])
def test_parquet_without_pyarrow_stops_before_checking(tmp_path: Path, dataset: Path, where: str) -> None:
    data, out = str(dataset), "results.jsonl"
    if where == "dataset":
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        rows = [json.loads(line) for line in dataset.read_text(encoding="utf-8").splitlines()]
        table = pa.table({"id": [r["id"] for r in rows], "answer": [r["answer"] for r in rows],
                          "sources": [json.dumps(r["sources"]) for r in rows]})  # fmt: skip
        pq.write_table(table, tmp_path / "answers.parquet")
        data = str(tmp_path / "answers.parquet")
    else:
        out = "results.parquet"
    env = without(tmp_path, "pyarrow")
    r, took = run(env, "check-dataset", data, "-o", out, "--summary", "summary.json", cwd=tmp_path)
    assert_names_the_extra(r, "parquet")
    assert not (tmp_path / out).exists() and not (tmp_path / "summary.json").exists()
    assert not r.stdout.strip()
    assert took < startup(env, tmp_path) + 1.5, took


def test_units_with_an_html_page_without_beautifulsoup_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nOne line.\n", encoding="utf-8")
    (tmp_path / "page.html").write_text("<html><body><p>A page.</p></body></html>", encoding="utf-8")
    env = without(tmp_path, "bs4")
    r, _ = run(env, "units", "notes.md", "page.html", "-o", "registry.json", cwd=tmp_path)
    assert_names_the_extra(r, "html")
    assert not (tmp_path / "registry.json").exists()
    r, _ = run(env, "context", "notes.md", "page.html", cwd=tmp_path)
    assert_names_the_extra(r, "html")
    assert not r.stdout
    # without an HTML page, no extra is needed
    r, _ = run(env, "units", "notes.md", "-o", "registry.json", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "registry.json").is_file(), r.stderr


def test_render_to_pdf_without_weasyprint_writes_nothing(tmp_path: Path) -> None:
    env = without(tmp_path, "weasyprint")
    answer, sources = EXAMPLES / "handbook" / "answer.md", EXAMPLES / "handbook" / "answer.sources.json"
    r, took = run(env, "render", str(answer), "--sources", str(sources), "--to", "pdf", "-o", "a.pdf", cwd=tmp_path)
    assert_names_the_extra(r, "pdf")
    assert not (tmp_path / "a.pdf").exists()
    assert "CR" not in r.stderr  # not rendered: no diagnostic was printed
    assert took < startup(env, tmp_path) + 1.5, took
    # checked before the answer is even read
    r, _ = run(env, "render", "no-such-answer.md", "--to", "pdf", "-o", "a.pdf", cwd=tmp_path)
    assert_names_the_extra(r, "pdf")


@pytest.mark.parametrize("example", ["web", "stream"])
def test_the_flask_examples_without_flask_name_the_web_extra(tmp_path: Path, example: str) -> None:
    app = EXAMPLES / example / "app.py"
    r = subprocess.run(
        [sys.executable, str(app)], cwd=ROOT, env=without(tmp_path, "flask"), capture_output=True, text=True, timeout=60
    )
    assert r.returncode != 0 and "Traceback" not in r.stderr, r.stderr
    assert "citerender[web]" in r.stderr and "pip install -e '.[web]'" in r.stderr
    docstring = app.read_text(encoding="utf-8").split('"""')[1]
    assert "pip install -e '.[web]'" in docstring.replace("\n", " ")
