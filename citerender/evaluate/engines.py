"""What a Dask, Ray or Spark job needs beside :func:`~citerender.evaluate.records.check_line` and
:func:`~citerender.evaluate.records.check_record`: a :class:`Tally` that adds results up per
partition and merges in any order, and :func:`require_engine`, which stops a script before any
work when its engine is not installed. The recipes are in ``docs/scale.md``."""

from __future__ import annotations

import bisect
import importlib
import os
import shutil
import sys
from collections.abc import Iterable, Mapping
from functools import reduce
from typing import Any, NoReturn

from ..errors import CiterenderError
from .metrics import Totals

__all__ = ["ENGINES", "FAILED_NAMED", "Tally", "require_engine"]

#: how many failed records a :class:`Tally` names (the first by id); all of them are counted
FAILED_NAMED = 20

#: engine -> (its name, the modules a recipe imports, the package that holds them)
ENGINES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "dask": ("Dask", ("dask.bag", "distributed"), "dask"),
    "ray": ("Ray", ("ray.data",), "ray"),
    "spark": ("Spark", ("pyspark.sql",), "pyspark"),
}


class Tally:
    """Results added up: the measures (:class:`~citerender.evaluate.metrics.Totals`), how many
    records, how many failed and the first :data:`FAILED_NAMED` of those by id with why. Any
    results with an ``id`` and a ``failure`` add up (``render_record``'s pages: no measures)."""

    def __init__(self) -> None:
        self.totals = Totals()
        self.records = 0
        self.failed = 0
        self.named: list[tuple[str, str]] = []  # (id, why), sorted, at most FAILED_NAMED

    @classmethod
    def of(cls, results: Iterable[Mapping[str, Any]]) -> Tally:
        """The tally of ``results`` (one partition's, say)."""
        tally = cls()
        for result in results:
            tally.add(result)
        return tally

    @staticmethod
    def total(tallies: Iterable[Tally]) -> Tally:
        """The partitions' tallies merged (Dask's ``Bag.reduction(Tally.of, Tally.total)``)."""
        return reduce(Tally.merge, tallies, Tally())

    def add(self, result: Mapping[str, Any]) -> None:
        self.records += 1
        self.totals.add(result)
        failure = result.get("failure")
        if failure:
            self.failed += 1
            rid = result.get("id")
            bisect.insort(self.named, ("(no id)" if rid is None else str(rid), str(failure)))
            del self.named[FAILED_NAMED:]

    def merge(self, other: Tally) -> Tally:
        out = Tally()
        out.totals = self.totals.merge(other.totals)
        out.records = self.records + other.records
        out.failed = self.failed + other.failed
        out.named = sorted(self.named + other.named)[:FAILED_NAMED]
        return out

    def failures(self) -> str:
        """What to say when records failed: how many of how many, and the first by id with why
        (``sys.exit(tally.failures())`` prints it and exits 1); empty when none failed."""
        if not self.failed:
            return ""
        lines = [f"{self.failed} of {self.records} records failed (each result's 'failure' says why):"]
        lines += [f"  {rid}: {why}" for rid, why in self.named]
        if self.failed > len(self.named):
            lines.append(f"  … and {self.failed - len(self.named)} more")
        return "\n".join(lines)


def require_engine(engine: str) -> None:
    """Stop a script before any work when ``engine`` (``dask``, ``ray``, ``spark``) cannot be imported,
    or for Spark no Java runtime is found: its extra named on stderr, exit status 2, as the CLI does."""
    name, modules, package = ENGINES[engine]
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            _stop(
                f"this job runs on {name}, which needs the {engine} extra (citerender[{engine}]): {package} is not installed",
                f"install it from the citerender clone: pip install -e '.[{engine}]'",
            )
    if engine == "spark" and not (os.environ.get("JAVA_HOME") or shutil.which("java")):
        _stop(
            "this job runs on Spark, which needs Java 17 or later: no java on PATH and no JAVA_HOME",
            "install a Java runtime (Debian: apt-get install default-jre-headless) or set JAVA_HOME",
        )


def _stop(message: str, hint: str) -> NoReturn:
    print(f"citerender: error: {CiterenderError(message, hint=hint)}", file=sys.stderr)
    raise SystemExit(2)
