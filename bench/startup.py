"""Start-up: whole processes, cold, in CPU time (issue 50). A CLI call in a script, a pre-commit
hook or a serverless function pays for its imports on every call; the rendering itself is a few
milliseconds. Rows, run side by side in interleaved rounds (median of per-round ratios):

* ``python -c pass``: the interpreter alone;
* a cold markdown-it-py render of the chat answer (the floor a Markdown library starts from);
* ``pandoc --citeproc`` on the same answer with CSL JSON references;
* a cold library call: ``import citerender``, ``load_sources``, ``render``;
* ``citerender render ANSWER --sources S -o page.html`` (the console entry point).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import inputs
from bench.measure import Report, side_by_side

_MD = "import sys; from markdown_it import MarkdownIt; MarkdownIt().render(open(sys.argv[1], encoding='utf-8').read())"
_LIB = (
    "import sys, citerender; reg = citerender.load_sources(sys.argv[2]); "
    "citerender.render(open(sys.argv[1], encoding='utf-8').read(), reg)"
)
_CLI = "import sys; from citerender.cli import main; sys.exit(main())"


def bench_startup(rep: Report, tmp: Path, rounds: int = 15) -> None:
    print("\n# start-up: whole processes, cold, CPU time (2 KB chat answer, 8 citations)", flush=True)
    c = inputs.chat()
    answer, sources, page = tmp / "chat.md", tmp / "chat.sources.json", tmp / "chat.html"
    answer.write_text(c.marked, encoding="utf-8")
    sources.write_text(json.dumps({"sources": c.sources}), encoding="utf-8")
    # as an installed package runs: bytecode cached (the warm-up round writes it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    py = sys.executable

    def run(cmd: list[str]) -> Callable[[], object]:
        return lambda: subprocess.run(cmd, check=False, capture_output=True, env=env, text=True)

    fns: dict[str, Callable[[], object]] = {
        "pass": run([py, "-c", "pass"]),
        "markdown-it": run([py, "-c", _MD, str(answer)]),
        "library": run([py, "-c", _LIB, str(answer), str(sources)]),
        "cli": run([py, "-c", _CLI, "render", str(answer), "--sources", str(sources), "-o", str(page)]),
    }
    pandoc = shutil.which("pandoc")
    if pandoc is not None:
        pmd, bib = tmp / "chat.pandoc.md", tmp / "chat.bib.json"
        pmd.write_text(c.pandoc, encoding="utf-8")
        bib.write_text(json.dumps([_csl(s) for s in c.sources]), encoding="utf-8")
        fns["pandoc"] = run([pandoc, str(pmd), "--citeproc", "--bibliography", str(bib), "-t", "html"])
    for name, fn in fns.items():  # a run that failed early must not count as a fast one
        done = fn()
        assert isinstance(done, subprocess.CompletedProcess)
        assert done.returncode in (0, 1), f"{name} failed: {done.stderr[-500:]!r}"
    stats, times = side_by_side(fns, repeat=rounds)
    rep.row("python -c pass", stats["pass"])
    rep.row("cold markdown-it-py render of the chat answer", stats["markdown-it"])
    if pandoc is not None:
        rep.row("pandoc --citeproc on the chat answer", stats["pandoc"])
    rep.row("cold library call: import citerender, load_sources, render", stats["library"])
    rep.row("citerender render ANSWER --sources S -o page.html", stats["cli"])
    rep.ratio_target("cold citerender render / cold markdown-it-py render", times, "cli", "markdown-it", 1.7)
    rep.ratio_target("cold library call / cold markdown-it-py render", times, "library", "markdown-it", 1.5)
    if pandoc is not None:
        rep.ratio_target("cold citerender render / pandoc --citeproc", times, "cli", "pandoc", 1.6)


def _csl(s: dict[str, Any]) -> dict[str, Any]:
    return {"id": s["id"], "type": "webpage", "title": s.get("title") or s["id"], "URL": s.get("url")}
