"""This checkout's ``render()`` against another commit's, both in one process, in CPU time.

The issue-47 measure: the chat answer (``inputs.chat()``) rendered by each tree and by plain
markdown-it-py on the text without markers, alternately, ``--rounds`` rounds of ``--calls`` calls;
the medians of the per-round ratios are printed. One process, so a busy machine weighs on both
trees alike::

    python -m bench.ab_trees                 # against the round's starting point, e49ea6d
    python -m bench.ab_trees --base HEAD~5 --rounds 30

The other commit's ``citerender`` and ``themes`` are unpacked (``git archive``) into a temporary
folder as a package of another name, its absolute module names rewritten to it.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
OTHER = "citerender_other"


def unpack(commit: str, into: Path) -> None:
    """``commit``'s package as :data:`OTHER` (and its themes beside it) in ``into``."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "citerender", "themes"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "citerender").rename(into / OTHER)
    for path in (into / OTHER).rglob("*.py"):  # module names written as strings (lazy imports)
        text = path.read_text(encoding="utf-8")
        fixed = text.replace('"citerender.', f'"{OTHER}.').replace("'citerender.", f"'{OTHER}.")
        if fixed != text:
            path.write_text(fixed, encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="e49ea6d", help="the commit to compare with (default: e49ea6d)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--calls", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        unpack(args.base, Path(tmp))
        sys.path[:0] = [tmp, str(ROOT)]
        import citerender
        from bench import inputs

        other = importlib.import_module(OTHER)
        registry_of = importlib.import_module(f"{OTHER}.sources.model").registry_from_data
        chat = inputs.chat()
        plain = MarkdownIt("commonmark")
        reg_now, reg_base = citerender.registry_from_data(chat.sources), registry_of(chat.sources)
        fns: dict[str, Callable[[], object]] = {
            "base": lambda: other.render(chat.marked, reg_base),
            "now": lambda: citerender.render(chat.marked, reg_now),
            "plain": lambda: plain.render(chat.stripped),
        }
        for f in fns.values():
            f()
            f()
        times: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(args.rounds):
            for name, f in fns.items():
                gc.collect()
                start = time.process_time()
                for _ in range(args.calls):
                    f()
                times[name].append(time.process_time() - start)

        def ratio(a: str, b: str) -> float:
            return statistics.median(x / y for x, y in zip(times[a], times[b], strict=True))

        print(f"base ({args.base}) / plain {ratio('base', 'plain'):.2f}   now / plain {ratio('now', 'plain'):.2f}")
        print(f"now / base {ratio('now', 'base'):.3f}")


if __name__ == "__main__":
    main()
