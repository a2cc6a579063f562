"""``citerender check-dataset``: every answer of a dataset checked (:func:`check_record`), the
results written as they come, in the dataset's order whatever ``jobs`` is, and the measures
reduced per group (:mod:`.metrics`). Memory stays flat, and a run killed and resumed writes the
same results as one that was not: each result carries its row number, and a resume skips as many
rows of an id as the results already hold of it (ids shared across rows lose nothing). The worst
answers are kept, a bounded number, for the report.
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TextIO

from ..errors import CiterenderError
from ..jobs.pool import Progress, run_pages
from ..options import RenderOptions, scorer_name
from ..syntax.escapes import visible
from .alce import alce_sentences
from .alce_run import ALCE_COLS, DEFINITION, AlceTotals, alce_record, check_alce
from .compare import Comparison, compare_ready
from .datasets import read_records, results_format
from .intervals import METHOD
from .metrics import Totals, definitions
from .records import check_record, empty_result
from .results_file import ResultsWriter, done_ids, earlier_results
from .worst import Worst

__all__ = ["DatasetSummary", "check_dataset", "group_key", "one_line", "scorer_name"]


@dataclass
class DatasetSummary:
    """What a run measured: overall and per group, what judged the claims, and the worst answers."""

    judge: str
    group_by: tuple[str, ...]
    overall: Totals = field(default_factory=Totals)
    groups: dict[str, Totals] = field(default_factory=dict)
    checked: int = 0  # records checked by this run (not those a resumed run skipped)
    skipped: int = 0
    worst: Worst = field(default_factory=Worst)
    #: ``id_col``, ``answer_col``, ``sources_col``: the report renders the very answer checked
    cols: dict[str, str] = field(default_factory=dict)
    examples: dict[str, tuple[str, str]] = field(default_factory=dict)  # code -> (record id, message)
    #: per group, answers by their support rate in tenths (0-10%, …, 90-100%): bounded, for the report
    hist: dict[str, list[int]] = field(default_factory=dict)
    #: ``--alce``: ALCE's aggregates, overall and per group (None: not an ALCE run)
    alce: dict[str, AlceTotals] | None = None
    #: a scorer decided which citations are relevant (citation precision's definition says so)
    scored: bool = False
    #: ``--compare COL --pair-by COL``: the paired comparison (None: none asked)
    compare: Comparison | None = None
    #: the dataset, read again for the records of worst answers a resumed run did not check
    data: str | Path | None = None
    within: str | None = None
    _seen: int = 0  # results added

    def add(self, result: dict[str, Any], record: dict[str, Any] | None) -> None:
        key = group_key(result, self.group_by)
        self._seen += 1
        self.overall.add(result)
        self.groups.setdefault(key, Totals()).add(result)
        if self.alce is not None:
            for k in ("", key):
                self.alce.setdefault(k, AlceTotals()).add(result.get("alce"))
        if self.compare is not None:
            self.compare.add(result)
        for d in result.get("diagnostics") or []:
            self.examples.setdefault(d["code"], (str(result.get("id")), d["message"]))
        rate = (result.get("metrics") or {}).get("support_rate")
        if rate is not None:
            self.hist.setdefault(key, [0] * 10)[min(int(rate * 10), 9)] += 1
        if not result.get("failure"):  # an earlier result (a resume) has no record yet: see worst_first
            self.worst.add(result, record, self._seen)

    def to_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "group_by": list(self.group_by),
            "checked": self.checked,
            "skipped": self.skipped,
            "overall": self.overall.summary(),
            "groups": {k: v.summary() for k, v in sorted(self.groups.items())},
            "intervals": METHOD,
            "definitions": definitions(self.scored),
            **({"alce": self.alce_summary()} if self.alce is not None else {}),
            **({"compare": self.compare.summary()} if self.compare is not None else {}),
        }

    def alce_summary(self) -> dict[str, Any]:
        """ALCE's numbers, named as ALCE's: overall and per group, with their definition."""
        alce = self.alce or {}
        return {
            **alce.get("", AlceTotals()).summary(),
            "definition": DEFINITION,
            "groups": {k: v.summary() for k, v in sorted(alce.items()) if k} if self.group_by else {},
        }

    def worst_first(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The worst answers kept, worst first: (result, record). A result a resumed run read back
        gets its record from the dataset (by its row), so a resumed run's report is the one an
        uninterrupted run writes; one whose record cannot be found is left out."""
        ranked = self.worst.ranked()
        rows = {r["row"] for r, record in ranked if record is None and isinstance(r.get("row"), int)}
        found = self._records(rows)
        pairs = [(r, record if record is not None else found.get(r.get("row") or 0)) for r, record in ranked]
        return [(r, record) for r, record in pairs if record is not None]

    def _records(self, rows: set[int]) -> dict[int, dict[str, Any]]:
        """The dataset's records at ``rows`` (1-based), read again (an ALCE item as it was checked)."""
        if self.data is None or not rows:
            return {}
        found = {}
        for k, record in enumerate(read_records(self.data, self.cols.get("id_col", "id"), within=self.within)):
            if k + 1 in rows:
                found[k + 1] = alce_record(record) if self.alce is not None else record
                if len(found) == len(rows):
                    break
        return found


def group_key(result: dict[str, Any], group_by: Sequence[str]) -> str:
    """The group of a result: its values of the ``group_by`` columns (``all`` without any)."""
    if not group_by:
        return "all"
    cols = result.get("columns") or {}
    return " / ".join(f"{g}={cols.get(g)}" for g in group_by)


def _check_task(task: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, Any]]:
    """Worker: one record checked (plain data in, plain data out). A result that cannot be
    written as JSON is that record's failure, never the run's."""
    if task["run"] != os.getpid():
        _end_with_the_run()
    record = task["record"]
    failure = record.get("__failure__")
    if failure is not None:
        result = empty_result(None, str(failure))
    elif task["alce"]:
        result, record = check_alce(record, task["options"], task["cols"]["id_col"], qampari=task["qampari"])
    else:
        result = check_record(record, task["options"], **task["cols"])
    try:
        json.dumps(result, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError) as e:
        result = empty_result(None, f"its result cannot be written as JSON ({type(e).__name__})")
    result["id"], result["row"] = task["id"], task["k"] + 1
    return task["seq"], result, record


@cache
def _end_with_the_run() -> None:
    """In a worker process, once: a thread that ends the worker when the run that started it is
    gone. A run killed with ``kill -9`` cannot stop its workers, and a worker waiting for work
    would wait forever; orphaned, it is handed to another parent, which the thread notices."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="citerender-end-with-the-run", daemon=True).start()


def one_line(text: str) -> str:
    """``text`` as one line of a terminal or a chart label: line breaks of every kind and control
    characters shown as escapes (a group named ``a\\nb`` never starts a line of its own)."""
    return visible(text.replace("\n", "\\n").replace("\u2028", "<U+2028>").replace("\u2029", "<U+2029>"))


def check_dataset(
    data: str | Path,
    results: str | Path,
    options: RenderOptions | None = None,
    *,
    id_col: str = "id",
    answer_col: str = "answer",
    sources_col: str = "sources",
    group_by: Sequence[str] = (),
    jobs: int = 1,
    resume: bool = True,
    progress: TextIO | None = None,
    alce: bool = False,
    compare: str | None = None,
    pair_by: str | None = None,
    **kwargs: Any,
) -> DatasetSummary:
    """Check every record of ``data`` into ``results`` (JSON Lines, JSON or Parquet); returns the
    measures. ``options`` or keyword arguments (``scorer=``) as for :func:`citerender.check`;
    ``alce``: an ALCE result file, scored by eval.py's definitions too (:mod:`.alce_run`);
    ``compare`` and ``pair_by``: a paired comparison (:mod:`.compare`)."""
    opts = RenderOptions.build(options, **kwargs)
    results_format(results)
    if alce:
        opts, (answer_col, sources_col) = _alce_ready(opts), ALCE_COLS.values()
    if opts.scorer is not None and jobs > 1:
        _picklable(opts.scorer)
    cols = {"id_col": id_col, "answer_col": answer_col, "sources_col": sources_col}
    within = "data" if alce else None
    summary = _new_summary(opts.scorer, group_by, alce, cols=dict(cols), data=data, within=within)
    records = read_records(data, id_col, within=within)  # checked before anything is written
    if compare is not None or pair_by is not None:
        if not compare or not pair_by:
            raise CiterenderError("--compare and --pair-by go together", hint="--compare model --pair-by prompt")
        compare_ready(read_records(data, id_col, within=within), compare, pair_by)  # before any work
        summary.compare = Comparison(compare, pair_by)
    done = done_ids(results) if resume else Counter()
    if done:
        for earlier in earlier_results(results):
            summary.add(earlier, None)
    seen: Counter[str] = Counter()  # rows of each id already in the results, met so far
    handed = itertools.count()  # the tasks handed out, numbered: results are written in that order
    # every task the same but for its record; QAMPARI is told as eval.py tells it, by the file's path
    common = {
        "options": opts,
        "cols": cols,
        "alce": alce,
        "run": os.getpid(),
        "qampari": alce and "qampari" in str(data),
    }

    def tasks() -> Iterator[dict[str, Any]]:
        for k, record in enumerate(records):
            rid = record.get(id_col)
            rid = f"row-{k + 1}" if rid is None or rid == "" else str(rid)
            if rid in done:
                seen[rid] += 1
                if seen[rid] <= done[rid]:
                    summary.skipped += 1
                    continue
            yield {"k": k, "seq": next(handed), "id": rid, "record": record, **common}

    writer = ResultsWriter(results, resume=bool(done))
    _write(writer, summary, run_pages(tasks(), jobs, _check_task), progress)
    return summary


def _write(
    writer: ResultsWriter,
    summary: DatasetSummary,
    checked: Iterator[tuple[int, dict[str, Any], dict[str, Any]]],
    progress: TextIO | None,
) -> None:
    """The results written in the order their tasks were handed out (the dataset's) as they come,
    whatever order the workers finish in; a run stopped keeps what was written."""
    bar = Progress(None, progress or sys.stderr, "records checked")
    pending: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    following = 0  # the task number written next
    try:
        for seq, result, record in checked:
            pending[seq] = (result, record)
            while following in pending:
                r, rec = pending.pop(following)
                writer.write(r)
                summary.add(r, rec)
                summary.checked += 1
                following += 1
                bar.step()
    except BaseException:
        writer.abort()
        raise
    writer.close()
    bar.close()


def _new_summary(scorer: object, group_by: Sequence[str], alce: bool, **fields: Any) -> DatasetSummary:
    judge = (
        f"scorer {scorer_name(scorer)} and citerender's lexical checks"
        + (" (the scorer is ALCE's entailment judge too: a score of 0.5 or more entails)" if alce else "")
        if scorer is not None
        else "citerender's lexical support checks (built in; --scorer adds a model's verdict)"
    )
    return DatasetSummary(judge, tuple(group_by), alce={} if alce else None, scored=scorer is not None, **fields)


def _alce_ready(opts: RenderOptions) -> RenderOptions:
    """An ALCE run's options (its ``[n]`` read as numbered citations), once it is sure it can run:
    a judge is given and NLTK's Punkt imports (else a clear error before any work)."""
    if opts.scorer is None:
        raise CiterenderError(
            "ALCE's citation recall and precision need an entailment judge",
            hint="pass --scorer MODULE:NAME (score(claim, evidence) -> 0..1; 0.5 or more entails)",
        )
    alce_sentences("Ready.")  # NLTK missing: the alce extra named, before any record
    return RenderOptions.build(opts, dialect="numbered")


def _picklable(scorer: object) -> None:
    """Worker processes get the scorer by pickle: one that cannot travel (it holds a lock, a model,
    a client) is a clear error, not a traceback mid-run. ``--scorer MODULE:NAME`` always travels:
    it is sent as its name and each worker imports it."""
    try:
        pickle.dumps(scorer)
    except Exception as e:
        raise CiterenderError(
            f"the scorer {scorer_name(scorer)} cannot be sent to worker processes ({type(e).__name__}: {str(e)[:80]})",
            hint="name it as MODULE:NAME (--scorer, or citerender.cli.scorer.load_scorer) or use one job",
        ) from None
