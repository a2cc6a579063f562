"""``citerender check-dataset DATA -o RESULTS``: a dataset of answers checked, per claim and per
group, with a summary printed (and written with ``--summary``) and a report page (``--report``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..errors import CiterenderError
from ..jobs.files import write_atomic
from .options import cli_scorer, require_extra

__all__ = ["add_check_dataset", "cmd_check_dataset", "same_file"]


def add_check_dataset(sub: Any, add_scorer: Any) -> None:
    d = sub.add_parser(
        "check-dataset",
        help="check every answer of a dataset (JSONL, JSON, Parquet): per claim, per answer and per group",
    )
    d.add_argument("data", help="the answers: .jsonl, .json (a list of records) or .parquet")
    d.add_argument(
        "--output", "-o", required=True, help="the results: .jsonl, .json or .parquet (resumed if it exists)"
    )
    d.add_argument("--id-col", default="id", help="the column naming each answer (default: id)")
    d.add_argument(
        "--answer-col", default="answer", help="the answer's Markdown, or a provider response (default: answer)"
    )
    d.add_argument("--sources-col", default="sources", help="the sources the answer may cite (default: sources)")
    d.add_argument(
        "--group-by", action="append", default=[], metavar="COL", help="measure per value of COL (repeatable)"
    )
    d.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (0: all cores)")
    d.add_argument("--restart", action="store_true", help="check everything again instead of resuming")
    d.add_argument("--summary", metavar="FILE", help="write the measures as JSON")
    d.add_argument("--report", metavar="PAGE", help="write a report page (HTML; needs the report extra)")
    d.add_argument(
        "--alce",
        action="store_true",
        help="DATA is an ALCE result file (or its data list): also ALCE eval.py's citation recall and precision,"
        " the --scorer as its entailment judge (needs --scorer and the alce extra)",
    )
    d.add_argument(
        "--compare",
        metavar="COL",
        help="compare the two values of COL (two models) on the questions both answered: paired differences"
        " of every rate, second minus first, with 95%% intervals (needs --pair-by)",
    )
    d.add_argument("--pair-by", metavar="COL", help="with --compare: the column naming the question (a prompt, an id)")
    add_scorer(d)
    d.set_defaults(func=cmd_check_dataset)


def cmd_check_dataset(a: argparse.Namespace) -> int:
    from ..evaluate.check_dataset import check_dataset
    from ..options import RenderOptions

    _distinct_outputs(a)
    _require_alce(a)
    _require_extras(a)
    jobs = a.jobs if a.jobs > 0 else (os.cpu_count() or 1)
    opts = RenderOptions.build(scorer=cli_scorer(a), dialect="numbered" if a.alce else None)
    summary = check_dataset(
        a.data,
        a.output,
        opts,
        id_col=a.id_col,
        answer_col=a.answer_col,
        sources_col=a.sources_col,
        group_by=a.group_by,
        jobs=jobs,
        resume=not a.restart,
        alce=a.alce,
        compare=a.compare,
        pair_by=a.pair_by,
    )
    data = summary.to_dict()
    if a.summary:
        write_atomic(a.summary, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    if a.report:
        from ..evaluate.report import write_report

        write_report(summary, a.report, opts)
    _print_summary(data)
    return 1 if data["overall"]["failures"] else 0


def same_file(a: str | Path, b: str | Path) -> bool:
    """``a`` and ``b`` name one file, however spelt: relative or absolute, through a symlink, a
    hard link (:func:`os.path.samefile` when both exist, resolved paths otherwise)."""
    pa, pb = Path(a), Path(b)
    try:
        if pa.exists() and pb.exists():
            return pa.samefile(pb)
        return pa.resolve() == pb.resolve()
    except (OSError, RuntimeError):  # a loop of links, a name too long: not provably one file
        return False


def _require_alce(a: argparse.Namespace) -> None:
    """``--alce`` needs a judge (``--scorer``) and NLTK's Punkt (the alce extra): said before any work."""
    if not a.alce:
        return
    if not a.scorer:
        raise CiterenderError(
            "--alce needs --scorer MODULE:NAME: ALCE's citation recall and precision are an entailment judge's verdicts",
            hint="pass --scorer my_models.nli:scorer (score(claim, evidence) -> 0..1; 0.5 or more entails)",
        )
    require_extra("alce", "nltk", "check-dataset --alce")


def _require_extras(a: argparse.Namespace) -> None:
    """What the run needs beyond the core (pyarrow for Parquet, matplotlib for the report), checked
    before any record is: a missing extra is said first, and nothing is checked, printed or written."""
    from ..evaluate.datasets import dataset_format, results_format

    parquet = [path for path, fmt in ((a.data, dataset_format(a.data)), (a.output, results_format(a.output)))
               if fmt == "parquet"]  # fmt: skip
    if parquet:
        require_extra("parquet", "pyarrow.parquet", f"check-dataset with Parquet ({parquet[0]})")
    if a.report:
        require_extra("report", "matplotlib", "check-dataset --report")


def _distinct_outputs(a: argparse.Namespace) -> None:
    """The results, ``--summary`` and ``--report`` never overwrite the dataset, nor each other."""
    named = [("-o", a.output), ("--summary", a.summary), ("--report", a.report)]
    outputs = [(opt, path) for opt, path in named if path]
    for i, (opt, path) in enumerate(outputs):
        if same_file(path, a.data):
            raise CiterenderError(f"{opt} names the dataset itself", path=path, hint="write it elsewhere")
        for other, earlier in outputs[:i]:
            if same_file(path, earlier):
                raise CiterenderError(f"{opt} and {other} name the same file", path=path, hint="give each its own")


def _print_summary(data: dict[str, Any]) -> None:
    from ..evaluate.check_dataset import one_line

    print(one_line(f"judge: {data['judge']}"))
    resumed = f", {data['skipped']} already in the results" if data["skipped"] else ""
    print(f"checked {data['checked']} answer(s){resumed}; {data['overall']['failures']} record(s) failed")
    print(f"intervals: {data['intervals']}")
    groups = data["groups"] if len(data["groups"]) > 1 else {"all": data["overall"]}
    for name, g in {**groups, **({"all answers": data["overall"]} if len(groups) > 1 else {})}.items():
        cells = []
        for metric, r in g["rates"].items():
            shown = "–" if r["value"] is None else f"{r['value']:.1%} [{r['ci95'][0]:.0%}, {r['ci95'][1]:.0%}]"
            cells.append(f"{metric} {shown}")
        print(one_line(f"{name} ({g['answers']} answers): " + "; ".join(cells)))
    if "alce" in data:
        _print_alce(data["alce"])
    if "compare" in data:
        _print_compare(data["compare"])
    sys.stdout.flush()


def _print_compare(c: dict[str, Any]) -> None:
    from ..evaluate.check_dataset import one_line

    if not c["questions"]:
        print(one_line(f"paired comparison of {c['column']}: no question answered by both (--pair-by {c['pair_by']})"))
        return
    first, second = c["first"], c["second"]
    print(
        one_line(
            f"paired comparison of {c['column']}: {second} minus {first}, on the {c['questions']} question(s)"
            f" both answered (--pair-by {c['pair_by']}), 95% intervals over questions"
        )
    )
    for name, r in c["rates"].items():
        if r["difference"] is None:
            print(f"  {name}: –")
            continue
        lo, hi = r["ci95"]
        print(
            f"  {name}: {r['first']:.1%} → {r['second']:.1%}, difference {100 * r['difference']:+.1f} points"
            f" [{100 * lo:+.1f}, {100 * hi:+.1f}]"
        )


def _print_alce(alce: dict[str, Any]) -> None:
    from ..evaluate.check_dataset import one_line

    def line(name: str, g: dict[str, Any]) -> str:
        rec, prec = (g[k] for k in ("alce_citation_recall", "alce_citation_precision"))
        shown = "–" if rec is None else f"citation recall {rec:.1f}, citation precision {prec:.1f}"
        return one_line(f"ALCE (eval.py) {name}: {shown} over {g['items_scored']} item(s)")

    for name, g in alce["groups"].items():
        print(line(name, g))
    print(line("all items" if alce["groups"] else "", alce).replace(" :", ":"))
    if alce["judge_problems"]:
        print(
            f"ALCE: the judge failed or gave no number in [0, 1] {alce['judge_problems']} time(s) (counted as not entailed)"
        )
