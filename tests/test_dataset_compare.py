"""``check-dataset --compare COL --pair-by COL``: two models compared on the questions both
answered. On questions that differ a lot in difficulty, the paired interval of the difference is
as wide as a paired bootstrap over questions (computed here) and far narrower than an unpaired
one; in the summary JSON, the printed output and the report; usage errors before any work."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

S, D, E = "\ue200", "\ue202", "\ue201"
LINES = [f"Meter {k} reads {7 * k + 3} units at noon." for k in range(1, 9)]
SOURCES = [{"id": "log", "title": "Meter log", "lines": LINES}]


def answer(supported: int) -> str:
    """Eight claims, the first ``supported`` of them right (the others a wrong number)."""
    return " ".join(
        f"Meter {k} reads {7 * k + 3 + (k > supported)} units at noon.{S}cite{D}log{D}L{k}{E}" for k in range(1, 9)
    )


def dataset(questions: int, seed: int) -> list[dict[str, Any]]:
    """Questions from very hard to easy; model-b gets about one claim more right on each."""
    rng = random.Random(seed)
    out = []
    for q in range(questions):
        base = rng.randint(0, 6)
        for model, supported in (("model-b", min(8, base + rng.choice([1, 1, 2]))), ("model-a", base)):
            out.append({"id": f"{model}-{q}", "model": model, "prompt": f"question {q}", "answer": answer(supported),
                        "sources": SOURCES})  # fmt: skip
    out.append(
        {"id": "lonely", "model": "model-a", "prompt": "only a answered", "answer": answer(8), "sources": SOURCES}
    )
    return out


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def width(values: list[float]) -> float:
    values.sort()
    return values[int(0.975 * len(values)) - 1] - values[int(0.025 * len(values))]


def pooled(rows: list[tuple[int, int]]) -> float:
    return sum(n for n, _ in rows) / sum(d for _, d in rows)


def test_the_paired_difference_and_its_interval(tmp_path: Path) -> None:
    records = dataset(40, seed=8)
    data = write(tmp_path / "answers.jsonl", records)
    r = run_cli("check-dataset", data, "-o", tmp_path / "r.jsonl", "--group-by", "model", "--compare", "model",
                "--pair-by", "prompt", "--summary", tmp_path / "s.json", "--report", tmp_path / "report.html")  # fmt: skip
    assert r.returncode == 0, r.stderr
    c = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["compare"]
    assert (c["first"], c["second"], c["questions"], c["only_first"]) == ("model-a", "model-b", 40, 1)
    support = c["rates"]["support_rate"]
    # the pairs as the results hold them: (model-a's supported, checked; model-b's)
    by: dict[str, dict[str, tuple[int, int]]] = {}
    for line in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines():
        res = json.loads(line)
        m = res["metrics"]
        by.setdefault(res["columns"]["prompt"], {})[res["columns"]["model"]] = (m["supported"], m["checked"])
    pairs = [(v["model-a"], v["model-b"]) for v in by.values() if len(v) == 2]
    assert len(pairs) == 40
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    assert support["first"] == round(pooled(a), 4) and support["second"] == round(pooled(b), 4)
    assert support["difference"] == pytest.approx(pooled(b) - pooled(a), abs=1e-4) and support["difference"] > 0
    assert isinstance(support["difference"], float) and len(support["ci95"]) == 2
    rng = random.Random(3)
    paired, unpaired = [], []
    for _ in range(2000):
        draw = rng.choices(pairs, k=len(pairs))
        paired.append(pooled([y for _, y in draw]) - pooled([x for x, _ in draw]))
        unpaired.append(pooled(rng.choices(b, k=len(b))) - pooled(rng.choices(a, k=len(a))))
    ours = support["ci95"][1] - support["ci95"][0]
    assert 0.75 * width(paired) <= ours <= 1.25 * width(paired), (support, width(paired))
    assert ours < 0.5 * width(unpaired)  # questions differ in difficulty: pairing takes that out
    assert support["ci95"][0] < support["difference"] < support["ci95"][1]
    assert "paired comparison of model: model-b minus model-a, on the 40 question(s)" in r.stdout
    assert f"difference {100 * support['difference']:+.1f} points" in r.stdout
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "model-b minus model-a" in page and f"{100 * support['difference']:+.1f}" in page


def test_compare_s_usage_errors_come_before_any_work(tmp_path: Path) -> None:
    records = dataset(3, seed=1)
    three = write(tmp_path / "three.jsonl", [*records, {**records[0], "id": "c", "model": "model-c"}])
    r = run_cli("check-dataset", three, "-o", tmp_path / "r.jsonl", "--compare", "model", "--pair-by", "prompt")
    assert r.returncode == 2 and "exactly two values of 'model'" in r.stderr and "3" in r.stderr
    apart = write(tmp_path / "apart.jsonl", [{**x, "prompt": f"{x['model']} {x['prompt']}"} for x in records])
    r = run_cli("check-dataset", apart, "-o", tmp_path / "r.jsonl", "--compare", "model", "--pair-by", "prompt")
    assert r.returncode == 2 and "nothing to pair" in r.stderr
    r = run_cli("check-dataset", three, "-o", tmp_path / "r.jsonl", "--compare", "model")
    assert r.returncode == 2 and "--pair-by" in r.stderr
    assert not (tmp_path / "r.jsonl").exists() and "Traceback" not in r.stderr
