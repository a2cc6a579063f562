"""The real corpus, rendered as a user renders it and measured from the outside (issue 49 §1).

Every recording, stream, export conversation and Markdown answer of the corpus
(:data:`bench.corpus_load.CORPUS_DIRS`) goes through ``citerender render FILE`` (an export's
conversations each with ``--conversation ID``; never ``--from`` or ``--sources``) in a process of
its own, with a time limit. Then, against what the data itself holds (:mod:`bench.corpus_held`,
read without the adapters):

- the exit code is 0 or 1, stderr holds no traceback, the process ends in time;
- no citation marker is in view outside code (:data:`bench.corpus_page.MARKERS`);
- the answer's own words are all on the page;
- the page has as many citation places as the data (``citerender-cite`` elements), links every
  URL given for a cited source and names every cited file;
- where it shows fewer, stderr says so: a warning whose code is one of :data:`LOSS_CODES`.

``python -m bench.corpus [-j N] [--only TEXT] [--json FILE]`` prints a row per file and the
totals, and exits 1 when an invariant is broken.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.corpus_held import Held, held, held_markdown
from bench.corpus_load import CorpusFile, conversations, corpus_files, load
from bench.corpus_page import linked, missing_words, read_page, shown_names
from bench.held_exports import export_held

TIMEOUT = 60.0
#: diagnostics that say the page shows less than the data holds
LOSS_CODES = {
    "CR101", "CR106", "CR223", "CR501", "CR502", "CR504", "CR505", "CR507", "CR508", "CR509",
    "CR510", "CR511", "CR512", "CR513", "CR514", "CR515",
}  # fmt: skip
_CODE = re.compile(r"\b(CR\d{3}) \[(error|warning|info)\]")


@dataclass
class Row:
    name: str
    shape: str
    rc: int = 0
    seconds: float = 0.0
    places_held: int = 0
    places_shown: int = 0
    unplaced: int = 0
    urls_given: int = 0
    urls_linked: int = 0
    files_given: int = 0
    files_named: int = 0
    codes: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # broken invariants
    shortfalls: list[str] = field(default_factory=list)  # less shown than held, and the codes saying so


COMMAND: list[str] = []  # set by --command: another citerender to measure (a commit's, say)


def _command() -> list[str]:
    if COMMAND:
        return COMMAND
    script = Path(sys.executable).parent / "citerender"
    return [str(script)] if script.exists() else [sys.executable, "-m", "citerender.cli"]


def run(path: Path, *extra: str, timeout: float = TIMEOUT) -> tuple[int, str, str, float]:
    """``citerender render PATH [extra]``: exit code (-1 on timeout), stdout, stderr, seconds."""
    start = time.perf_counter()
    try:
        p = subprocess.run(
            [*_command(), "render", str(path), *extra], capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return -1, "", "timeout", time.perf_counter() - start
    out = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    return p.returncode, *out, time.perf_counter() - start


def measure(name: str, h: Held, path: Path, *extra: str) -> Row:
    rc, out, err, secs = run(path, *extra)
    row = Row(name, h.shape, rc, round(secs, 2), places_held=h.places, unplaced=h.unplaced)
    row.urls_given, row.files_given = len(h.urls), len(h.files)  # held, whatever the page turns out to be
    for code, _ in _CODE.findall(err):
        row.codes[code] = row.codes.get(code, 0) + 1
    if rc == -1:
        row.problems.append(f"no page within {TIMEOUT:.0f} s")
        return row
    if rc not in (0, 1):
        row.problems.append(f"exit {rc}: {err.strip().splitlines()[-1][:160] if err.strip() else ''}")
    if "Traceback" in err:
        row.problems.append(f"traceback on stderr: {err.strip().splitlines()[-1][:200]}")
    if rc not in (0, 1):
        return row
    page = read_page(out)
    row.problems += [f"marker in view: {m}" for m in page.markers()]
    if h.text is not None:
        lost = [w for piece in h.text.split("\f") for w in missing_words(piece, page.answer_text)]
        if lost:
            row.problems.append(f"text: {len(lost)} words not on the page ({' '.join(lost[:12])})")
    row.places_shown = page.cites
    urls, names = linked(h.urls, page), shown_names(h.files, page)
    row.urls_linked, row.files_named = len(urls), len(names)
    _shortfalls(row, h, page.cites, h.urls - urls, h.files - names)
    return row


def _shortfalls(row: Row, h: Held, shown: int, unlinked: set[str], unnamed: set[str]) -> None:
    """Each place, URL or file the page lacks must be answered by a warning on stderr: as many
    of them as there are things missing."""
    said = sorted(c for c in row.codes if c in LOSS_CODES)
    gaps = [f"places {shown}/{h.places}"] if shown < h.places else []
    gaps += [f"URL not linked: {u}" for u in sorted(unlinked)] + [f"file not named: {n}" for n in sorted(unnamed)]
    missing = max(0, h.places - shown) + len(unlinked) + len(unnamed)
    warned = sum(row.codes[c] for c in said)
    for gap in gaps:
        if said:
            row.shortfalls.append(f"{gap} [{', '.join(said)}]")
        else:
            row.problems.append(f"{gap}, and stderr says nothing of it")
    if said and warned < missing:
        row.problems.append(f"{missing} things not shown, {warned} warnings ({', '.join(said)}) saying so")


def rows_for(f: CorpusFile) -> list[tuple[str, Held, Path, tuple[str, ...]]]:
    """What to render for one corpus file: the file, or each conversation of an export."""
    if f.kind == "markdown":
        return [(f.name, held_markdown(f.path), f.path, ())]
    try:
        convs = conversations(load(f.path))
    except (ValueError, UnicodeDecodeError) as e:
        return [(f.name, Held("unreadable", text=None), f.path, ())] if e else []
    if convs is not None:
        return [(f"{f.name}#{cid}", export_held(c), f.path, ("--conversation", cid)) for cid, c in convs]
    return [(f.name, held(f.path), f.path, ())]


def tally(files: list[CorpusFile], jobs: int = 2) -> list[Row]:
    work = [w for f in files for w in rows_for(f)]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda w: measure(w[0], w[1], w[2], *w[3]), work))


def totals(rows: list[Row]) -> dict[str, int]:
    keys = ("places_shown", "places_held", "unplaced", "urls_linked", "urls_given", "files_named", "files_given")
    out = {k: sum(getattr(r, k) for r in rows) for k in keys}
    out["places_shown"] = sum(min(r.places_shown, r.places_held) for r in rows)  # a surplus makes up no loss
    out["files"] = len(rows)
    out["problems"] = sum(len(r.problems) for r in rows)
    out["shortfalls"] = sum(len(r.shortfalls) for r in rows)
    return out


def table(rows: list[Row]) -> str:
    head = f"{'file':<78} {'shape':<19} rc {'places':>9} {'URLs':>7} {'files':>5}  codes"
    lines = [head, "-" * len(head)]
    for r in rows:
        places = f"{r.places_shown}/{r.places_held}" + (f"+{r.unplaced}" if r.unplaced else "")
        codes = " ".join(f"{c}×{n}" for c, n in sorted(r.codes.items()) if c != "CR308")
        lines.append(
            f"{r.name[-78:]:<78} {r.shape:<19} {r.rc:>2} {places:>9} {r.urls_linked:>3}/{r.urls_given:<3} "
            f"{r.files_named:>2}/{r.files_given:<2}  {codes}"
        )
        lines += [f"    ! {p}" for p in r.problems]
        lines += [f"    - {s}" for s in r.shortfalls]
    lines.append("-" * len(head))
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(r.name.split("/", 1)[0], []).append(r)
    for group, members in sorted(groups.items()):
        lines.append(f"{group + '/':<18} {_summary(totals(members))}")
    lines.append(f"{'all':<18} {_summary(totals(rows))}")
    return "\n".join(lines)


def _summary(t: dict[str, int]) -> str:
    return (
        f"{t['files']} renders: places {t['places_shown']}/{t['places_held']} (+{t['unplaced']} without a place), "
        f"URLs {t['urls_linked']}/{t['urls_given']}, files {t['files_named']}/{t['files_given']}; "
        f"{t['problems']} broken invariants, {t['shortfalls']} shortfalls reported on stderr"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.corpus", description=__doc__.splitlines()[0])
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--only", action="append", default=[], help="files whose name holds this text")
    ap.add_argument("--json", type=Path, help="write the rows and totals here")
    ap.add_argument(
        "--command",
        help="the citerender to run (default: this environment's), e.g. 'env PYTHONPATH=old python -m citerender.cli'",
    )
    a = ap.parse_args(argv)
    if a.command:
        COMMAND[:] = shlex.split(a.command)
    files = [f for f in corpus_files() if not a.only or any(s in f.name for s in a.only)]
    rows = tally(files, a.jobs)
    print(table(rows))
    if a.json:
        a.json.write_text(json.dumps({"totals": totals(rows), "rows": [asdict(r) for r in rows]}, indent=1) + "\n")
    return 1 if any(r.problems for r in rows) else 0


def _as_dict(r: Row) -> dict[str, Any]:
    return asdict(r)


if __name__ == "__main__":
    sys.exit(main())
