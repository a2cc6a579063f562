"""``check-dataset --alce``: an ALCE result file checked item by item — ALCE's citation recall and
precision (:mod:`.alce`: eval.py's definitions, the ``--scorer`` as its entailment judge) beside
citerender's own measures of the same answer.

Each item becomes a record citerender checks (:func:`alce_record`): the answer eval.py scores (the
output's first line), its documents as sources numbered 1…n in order (``[n]`` read as the
``numbered`` dialect reads it, whatever id a document carries), and the item's other plain fields
(question, sample_id …) as columns. Its result carries ALCE's per-item values under ``alce``; the
run's summary averages them per item, as eval.py does (:class:`AlceTotals`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CiterenderError
from ..options import RenderOptions
from .alce import alce_items, alce_text, document_text, entailment, score_item

__all__ = ["ALCE_COLS", "DEFINITION", "AlceJudge", "AlceTotals", "alce_record", "check_alce"]

#: the columns of an ALCE item citerender reads as the answer and its sources
ALCE_COLS = {"answer_col": "output", "sources_col": "docs"}
DEFINITION = (
    "princeton-nlp/ALCE eval.py compute_autoais as its main() calls it: the output's first line split by NLTK Punkt,"
    " [n] read as eval.py reads it, at most 3 citations a sentence; recall = entailed sentences / sentences and"
    " precision = counted citations / citations per item, averaged over items, in percent (a file whose path"
    " names qampari: the question and each comma-separated answer are the sentences, as eval.py splits them)"
)


class AlceJudge:
    """ALCE's entailment call made by a scorer: ``score(claim, premise) >= 0.5`` entails. A score
    that is not a number in [0, 1], or a scorer that raises, does not entail and is counted."""

    def __init__(self, scorer: Any) -> None:
        self.scorer, self.problems = scorer, 0

    def __call__(self, claim: str, evidence: str) -> bool:
        verdict = entailment(self.scorer, claim, evidence)
        self.problems += verdict is None
        return bool(verdict)


def alce_record(item: Mapping[str, Any]) -> dict[str, Any]:
    """An ALCE item as a record citerender checks (see the module docstring)."""
    docs = item.get("docs")
    sources = []
    for n, doc in enumerate(docs if isinstance(docs, list) else [], start=1):
        if isinstance(doc, Mapping):
            sources.append(
                {"id": str(n), "title": str(doc.get("title") or f"Document {n}"), "text": document_text(doc)}
            )
    out = {k: v for k, v in item.items() if k not in ALCE_COLS.values() and _scalar(v)}
    output = item.get("output")
    out["output"] = alce_text(output) if isinstance(output, str) else output
    out["docs"] = sources
    return out


def _scalar(v: object) -> bool:
    return v is None or isinstance(v, str | int | float | bool)


def check_alce(
    item: Mapping[str, Any], options: RenderOptions, id_col: str, *, qampari: bool = False
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One ALCE item: citerender's result for its answer, with ALCE's per-item values under
    ``alce`` (none when the item cannot be scored: its failure says why); and the record checked.
    ``qampari``: scored as eval.py scores a QAMPARI file."""
    from .records import check_record

    record = alce_record(item)
    result = check_record(record, options, id_col=id_col, **ALCE_COLS)
    judge = AlceJudge(options.scorer)
    try:
        (parsed,) = alce_items([item])
        score = score_item(parsed, judge, qampari=qampari)
    except CiterenderError as e:
        result["failure"] = result["failure"] or e.message
    else:
        result["alce"] = {**score.to_dict(), "judge_problems": judge.problems}
    return result, record


class AlceTotals:
    """ALCE's aggregates over items, as eval.py prints them: per-item means in percent, over the
    items with a sentence (eval.py skips the others)."""

    def __init__(self) -> None:
        self.items = self.scored = self.judge_problems = 0
        self.recall = self.precision = 0.0  # summed in the dataset's order: the same on a resume

    def add(self, alce: Mapping[str, Any] | None) -> None:
        if alce is None:
            return
        self.items += 1
        self.judge_problems += int(alce.get("judge_problems") or 0)
        recall, precision = alce["alce_citation_recall"], alce["alce_citation_precision"]
        if recall is not None and precision is not None:
            self.scored += 1
            self.recall += recall
            self.precision += precision

    def summary(self) -> dict[str, Any]:
        n = self.scored
        return {
            "alce_citation_recall": round(100 * self.recall / n, 4) if n else None,
            "alce_citation_precision": round(100 * self.precision / n, 4) if n else None,
            "items": self.items,
            "items_scored": n,
            "judge_problems": self.judge_problems,
        }
