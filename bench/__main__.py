"""citerender benchmarks against its peers: ``python -m bench`` (or ``make bench``).

Prints a table of medians (with min–max to show the machine's noise), each target as a PASS/FAIL
line with its measured ratio, and writes ``bench/results.json``. Peers run side by side in the
same process run: plain markdown-it-py, mdit-py-plugins' footnote plugin, Debian's pandoc
--citeproc, and the guide's reference helper (restated in ``bench/reference_helper.py``).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench import inputs  # noqa: E402
from bench.reference_helper import ref_extract, ref_strip  # noqa: E402


def measure(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 1) -> dict[str, float]:
    """Median, min and max wall time of ``fn`` over ``repeat`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return {"median": statistics.median(times), "min": min(times), "max": max(times), "runs": repeat}


def fmt_t(m: dict[str, float]) -> str:
    return f"{m['median'] * 1000:9.1f} ms  ({m['min'] * 1000:.1f}–{m['max'] * 1000:.1f})"


class Report:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str]] = []
        self.targets: list[dict[str, Any]] = []
        self.data: dict[str, Any] = {}

    def row(self, name: str, m: dict[str, float]) -> None:
        self.data[name] = m
        self.rows.append((name, fmt_t(m)))
        print(f"  {name:<58} {fmt_t(m)}", flush=True)

    def target(self, name: str, value: float, limit: float, *, lower_is_better: bool = True, unit: str = "×") -> None:
        ok = value <= limit if lower_is_better else value >= limit
        cmp = "≤" if lower_is_better else "≥"
        self.targets.append({"target": name, "value": value, "limit": limit, "pass": ok})
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {value:.2f}{unit} (target {cmp} {limit}{unit})", flush=True)


def bench_extract_strip(rep: Report, quick: bool) -> None:
    from citerender import extract_citations, strip_citations

    print("\n# extract / strip: 20,000 markers", flush=True)
    for size in (1_000_000, 800_000):
        text = inputs.with_markers(size, 20_000)
        ours = extract_citations(text)
        theirs = ref_extract(text)
        assert [c.as_dict() for c in ours] == theirs
        label = f"{len(text) / 1e6:.2f} MB"
        e_ours = measure(lambda text=text: extract_citations(text))
        e_ref = measure(lambda text=text: ref_extract(text))
        s_ours = measure(lambda text=text, ours=ours: strip_citations(text, ours))
        s_ref = measure(lambda text=text, theirs=theirs: ref_strip(text, theirs), repeat=3 if quick else 5, warmup=0)
        rep.row(f"extract_citations, ours ({label})", e_ours)
        rep.row(f"extract_citations, guide's helper ({label})", e_ref)
        rep.row(f"strip_citations, ours ({label})", s_ours)
        rep.row(f"strip_citations, guide's helper ({label})", s_ref)
        if size == 1_000_000:
            rep.row(
                f"strip every dialect, ours, scan-based ({label})", measure(lambda text=text: strip_citations(text))
            )
            rep.target(
                "extract_citations: helper time / ours (1 MB, 20k markers)",
                e_ref["median"] / e_ours["median"],
                1.0,
                lower_is_better=False,
            )
        else:
            rep.target(
                "strip_citations: helper time / ours (800 KB, 20k markers)",
                s_ref["median"] / s_ours["median"],
                100.0,
                lower_is_better=False,
            )


def _floor_md() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


def bench_render(rep: Report, corpora: dict[str, inputs.Corpus]) -> None:
    from mdit_py_plugins.footnote import footnote_plugin

    from citerender import RenderOptions, render
    from citerender.rendering.html import make_markdown
    from citerender.sources.model import registry_from_data

    print("\n# in-process render (footnotes style; the commonmark preset, like the floor)", flush=True)
    plain = _floor_md()
    foot = _floor_md().use(footnote_plugin)
    full = RenderOptions()  # the default: Markdown as models write it, against the same parser without us
    full_floor = make_markdown(full, citations=False)
    for name, c in corpora.items():
        reg = registry_from_data(c.sources)
        ours = measure(lambda c=c, reg=reg: render(c.marked, reg, markdown="commonmark"), repeat=5)
        ours_full = measure(lambda c=c, reg=reg: render(c.marked, reg, full), repeat=5)
        floor_full = measure(lambda c=c: full_floor.render(c.stripped), repeat=5)
        rep.row(f"citerender render, full preset, {name}", ours_full)
        rep.row(f"the full preset's parser alone on stripped text, {name}", floor_full)
        floor = measure(lambda c=c: plain.render(c.stripped), repeat=5)
        peer = measure(lambda c=c: foot.render(c.footnoted), repeat=5)
        rep.row(f"citerender render, {name} ({len(c.marked) / 1e3:.0f} KB, {c.markers} markers)", ours)
        rep.row(f"markdown-it-py on stripped text, {name}", floor)
        rep.row(f"markdown-it-py + footnote_plugin, {name}", peer)
        rep.target(f"render {name}: ours / plain markdown-it-py", ours["median"] / floor["median"], 1.10)
        rep.target(f"render {name}: ours / footnote_plugin", ours["median"] / peer["median"], 1.0)
        if _has_comrak():
            fast = measure(lambda c=c, reg=reg: render(c.marked, reg, engine="fast"), repeat=5)
            rep.row(f"citerender render, engine='fast' (comrak), {name}", fast)
            rep.target(
                f"render {name}: plain markdown-it-py / engine='fast'",
                floor["median"] / fast["median"],
                3.0,
                lower_is_better=False,
            )


def _has_comrak() -> bool:
    from citerender.rendering.fast import available

    if not available():
        print("SKIP  engine='fast': comrak not installed (pip install 'citerender[fast]')")
    return available()


def bench_pandoc(rep: Report, corpus: inputs.Corpus, tmp: Path) -> None:
    print("\n# whole process, spec: citerender render vs pandoc --citeproc", flush=True)
    pandoc = shutil.which("pandoc")
    answer, sources = tmp / "spec.md", tmp / "spec.sources.json"
    answer.write_text(corpus.marked, encoding="utf-8")
    sources.write_text(json.dumps({"sources": corpus.sources}), encoding="utf-8")
    exe = [
        sys.executable,
        "-m",
        "citerender.cli",
        "render",
        str(answer),
        "--sources",
        str(sources),
        "-o",
        str(tmp / "ours.html"),
    ]
    ours = measure(lambda: subprocess.run(exe, check=False, capture_output=True), repeat=5)
    rep.row("citerender render (whole process)", ours)
    if pandoc is None:
        print("SKIP  pandoc not installed (apt-get install pandoc)")
        return
    pmd = tmp / "spec.pandoc.md"
    pmd.write_text(corpus.pandoc, encoding="utf-8")
    bib = tmp / "bib.json"
    bib.write_text(
        json.dumps(
            [
                {
                    "id": s["id"],
                    "type": "webpage",
                    "title": s["title"],
                    "URL": s["url"],
                    "issued": {"date-parts": [[int(x) for x in s["updated"].split("-")]]},
                }
                for s in corpus.sources
            ]
        ),
        encoding="utf-8",
    )
    cmd = [
        pandoc,
        str(pmd),
        "--citeproc",
        "--bibliography",
        str(bib),
        "-f",
        "markdown",
        "-t",
        "html",
        "-o",
        str(tmp / "pandoc.html"),
    ]
    theirs = measure(lambda: subprocess.run(cmd, check=False, capture_output=True), repeat=5)
    rep.row("pandoc --citeproc (whole process)", theirs)
    rep.target(
        "whole process on spec: pandoc time / ours", theirs["median"] / ours["median"], 5.0, lower_is_better=False
    )


def bench_stream(rep: Report, corpus: inputs.Corpus) -> None:
    from citerender import render
    from citerender.publish.stream import StreamRenderer
    from citerender.sources.model import registry_from_data

    print("\n# streaming, dense, 20-character chunks", flush=True)
    reg = registry_from_data(corpus.sources)
    text = corpus.marked
    pieces = [text[i : i + 20] for i in range(0, len(text), 20)]

    def stream(output: str) -> None:
        sr = StreamRenderer(reg, output=output)
        for p in pieces:
            sr.feed(p)
        sr.close()

    one = measure(lambda: render(text, reg, bibliography=False), repeat=3)
    html = measure(lambda: stream("html"), repeat=3)
    md = measure(lambda: stream("markdown"), repeat=3)
    rep.row("render, one shot (no bibliography)", one)
    rep.row("StreamRenderer html, 20-char chunks", html)
    rep.row("StreamRenderer markdown, 20-char chunks", md)
    rep.target("streaming html total / one-shot render (dense)", html["median"] / one["median"], 2.0)


def bench_scale(rep: Report, quick: bool) -> None:
    from citerender import render
    from citerender.sources.model import registry_from_data

    print("\n# scale: dense generator", flush=True)
    sizes = [10_000, 100_000, 1_000_000] + ([] if quick else [10_000_000])
    times: dict[int, float] = {}
    for size in sizes:
        c = inputs.dense(size)
        reg = registry_from_data(c.sources)
        m = measure(
            lambda c=c, reg=reg: render(c.marked, reg),
            repeat=3 if size >= 1_000_000 else 5,
            warmup=0 if size >= 10_000_000 else 1,
        )
        times[size] = m["median"]
        rep.row(f"render dense {size / 1e6:g} MB", m)
        if size in (1_000_000, sizes[-1]):
            tracemalloc.start()
            render(c.marked, reg)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            tracemalloc.start()
            _floor_md().render(c.stripped)
            _, floor_peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            ratio = peak / len(c.marked.encode("utf-8"))
            print(
                f"  peak memory at {size / 1e6:g} MB: ours {peak / 1e6:.0f} MB ({ratio:.1f}× input), "
                f"plain markdown-it-py {floor_peak / 1e6:.0f} MB",
                flush=True,
            )
            rep.data[f"peak_memory_{size}"] = {"ours": peak, "markdown_it": floor_peak, "input": len(c.marked)}
            rep.target(f"peak memory at {size / 1e6:g} MB / input size", ratio, 6.0)
    if 10_000_000 in times:
        rep.target("scale: time(10 MB) / time(1 MB)", times[10_000_000] / times[1_000_000], 12.0)
    else:
        rep.target("scale: time(1 MB) / time(100 KB)", times[1_000_000] / times[100_000], 12.0)


def bench_build(rep: Report, tmp: Path) -> None:
    from citerender.publish.site import build_site

    print("\n# build: 1,000 answers of 2-5 KB (many)", flush=True)
    src = inputs.many(tmp)
    timings = {}
    for jobs in (1, 2):
        out = tmp / f"site{jobs}"
        t = time.perf_counter()
        res = build_site(src, out, jobs=jobs)
        timings[jobs] = time.perf_counter() - t
        assert res.written == 1000
        rep.row(
            f"citerender build --jobs {jobs} (first build)",
            {"median": timings[jobs], "min": timings[jobs], "max": timings[jobs], "runs": 1},
        )
    t = time.perf_counter()
    res = build_site(src, tmp / "site2", jobs=2)
    rebuild = time.perf_counter() - t
    assert res.written == 0 and res.skipped == 1000
    rep.row("citerender build, no-change rebuild", {"median": rebuild, "min": rebuild, "max": rebuild, "runs": 1})
    rep.target("build: --jobs 1 time / --jobs 2 time", timings[1] / timings[2], 1.6, lower_is_better=False)
    rep.target("build: no-change rebuild / first build (%)", 100 * rebuild / timings[2], 5.0, unit=" %")


def bench_import(rep: Report) -> None:
    print("\n# start-up", flush=True)
    base = measure(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), repeat=11)
    imp = measure(lambda: subprocess.run([sys.executable, "-c", "import citerender"], check=True), repeat=11)
    rep.row("python -c pass", base)
    rep.row("python -c 'import citerender'", imp)
    rep.target("import citerender adds (ms)", (imp["median"] - base["median"]) * 1000, 60.0, unit=" ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--quick", action="store_true", help="skip the 10 MB scale point")
    ap.add_argument(
        "--only", choices=["extract", "render", "pandoc", "stream", "scale", "import", "build"], action="append"
    )
    a = ap.parse_args(argv)
    only = set(a.only or ["extract", "render", "pandoc", "stream", "scale", "import", "build"])
    rep = Report()
    started = time.perf_counter()
    print(f"citerender benchmarks — Python {sys.version.split()[0]}, {os.cpu_count()} cores", flush=True)
    corpora = {"spec": inputs.spec(), "dense": inputs.dense()} if only & {"render", "pandoc", "stream"} else {}
    if "extract" in only:
        bench_extract_strip(rep, a.quick)
    if "render" in only:
        bench_render(rep, corpora)
    if "pandoc" in only:
        with tempfile.TemporaryDirectory() as tmp:
            bench_pandoc(rep, corpora["spec"], Path(tmp))
    if "stream" in only:
        bench_stream(rep, corpora["dense"])
    if "scale" in only:
        bench_scale(rep, a.quick)
    if "import" in only:
        bench_import(rep)
    if "build" in only:
        with tempfile.TemporaryDirectory() as tmp:
            bench_build(rep, Path(tmp))
    failed = [t for t in rep.targets if not t["pass"]]
    total = time.perf_counter() - started
    print(f"\n{len(rep.targets) - len(failed)} of {len(rep.targets)} targets pass ({total:.0f} s)")
    out = {
        "python": sys.version,
        "cores": os.cpu_count(),
        "seconds": total,
        "measurements": rep.data,
        "targets": rep.targets,
    }
    (HERE / "results.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
