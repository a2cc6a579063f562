"""``kill -9`` of a ``check-dataset --jobs 2`` run: no worker outlives it (each ends itself within
seconds of its run), and the run resumed writes the results file an uninterrupted run writes,
byte for byte; a killed Parquet run resumes without checking again what it had finished (counted
by the scorer's calls) and leaves no temporary file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import run_cli

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")

S, D, E = "\ue200", "\ue202", "\ue201"
SOURCES = [{"id": "s1", "title": "Handbook", "lines": ["Employees may work remotely up to three days per week."]}]


def children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


JUDGE = """import os, time

def scorer(claim, evidence):
    with open(os.environ["CALLS"], "a") as f:
        f.write("x")
    time.sleep(0.01)
    return 0.9
"""


def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    (tmp_path / "slow_judge.py").write_text(JUDGE, encoding="utf-8")
    monkeypatch.setenv("CALLS", str(tmp_path / "calls"))
    answer = f"Employees may work remotely up to three days per week.{S}cite{D}s1{D}L1{E}"
    records = [{"id": f"a{k}", "answer": answer, "sources": SOURCES} for k in range(300)]
    data = tmp_path / "answers.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return ["check-dataset", str(data), "--jobs", "2", "--scorer", "slow_judge:scorer"]


def kill_midway(tmp_path: Path, argv: list[str], watched: Path) -> list[int]:
    """Start the run in its own process, ``kill -9`` it once ``watched`` holds some results; its workers."""
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.Popen([sys.executable, "-m", "citerender.cli", *argv], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not watched.exists() or watched.stat().st_size < 2000):
            time.sleep(0.05)
        workers = children(run.pid)
        assert len(workers) >= 2 and run.poll() is None, "the run ended before it could be killed"
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=10)
        gone_by = time.monotonic() + 10
        while time.monotonic() < gone_by and any(alive(w) for w in workers):
            time.sleep(0.1)
        return workers
    finally:  # whatever happened, nothing this test started is left running
        if run.poll() is None:
            os.kill(run.pid, signal.SIGKILL)
            run.wait(timeout=10)
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_kill_9_leaves_no_worker_and_the_resumed_run_writes_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = setup(tmp_path, monkeypatch)
    whole = run_cli(*argv, "-o", tmp_path / "whole.jsonl", path=str(tmp_path))
    assert whole.returncode == 0, whole.stderr
    killed = tmp_path / "killed.jsonl"
    workers = kill_midway(tmp_path, [*argv, "-o", str(killed)], killed)
    assert not any(alive(w) for w in workers), "workers outlived their run"
    assert 0 < len(killed.read_bytes().splitlines()) < 300
    resumed = run_cli(*argv, "-o", killed, path=str(tmp_path))
    assert resumed.returncode == 0 and "already in the results" in resumed.stdout, resumed.stderr
    assert killed.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()


def test_a_killed_parquet_run_resumes_where_it_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pyarrow")
    from citerender.evaluate.results_file import journal_path, read_results

    argv = setup(tmp_path, monkeypatch)
    run_cli(*argv, "-o", tmp_path / "whole.parquet", path=str(tmp_path))
    killed = tmp_path / "killed.parquet"
    kill_midway(tmp_path, [*argv, "-o", str(killed)], journal_path(killed))
    kept = sum(line.endswith(b"\n") for line in journal_path(killed).read_bytes().splitlines(keepends=True))
    assert 0 < kept < 300 and not killed.exists()
    calls = tmp_path / "calls"
    calls.unlink()
    resumed = run_cli(*argv, "-o", killed, path=str(tmp_path))
    assert resumed.returncode == 0 and f"{kept} already in the results" in resumed.stdout, resumed.stderr
    assert len(calls.read_text()) == 300 - kept  # what was finished is not checked again
    assert list(read_results(killed)) == list(read_results(tmp_path / "whole.parquet"))
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no journal, no .tmp
