"""ALCE's citation recall and precision, computed rule for rule as princeton-nlp/ALCE's ``eval.py``
computes them (``compute_autoais`` as its ``main()`` calls it on a result file ``{"args", "data":
[{question, output, docs}]}``), so an eval team's numbers match the paper's code given the same judge:

* the output is stripped, cut at its first newline, ``<|im_end|>`` removed, and split into
  sentences by NLTK's Punkt (English parameters when ``punkt_tab`` is installed, else untrained);
* a sentence's citations are read as eval.py reads them, ``\\[\\d+``: only the first number of
  ``[5, 3]`` or ``[1-2]``; ``[0]`` names the *last* document, as Python's ``docs[-1]`` does there;
* the hypothesis is the sentence without citations, as ALCE's ``remove_citations`` leaves it;
* a sentence without citations, or citing past the last document, scores 0 (no judge call); only
  its first :data:`AT_MOST_CITATIONS` are used; the premise is ``"Title: T\\n" + text`` per
  document, joined by newlines;
* precision: a citation of a supported sentence citing several documents counts when its document
  alone entails the sentence, or the others without it do not; a lone citation counts its verdict;
* per item: recall = entailed sentences / sentences, precision = counted citations / citations
  (0 without citations); items with no sentence are left out of the per-item means, in percent.

A file whose path names QAMPARI is scored as eval.py scores it (``"qampari" in args.f``): each
comma-separated answer of the first line, after the question, is a "sentence". The judge is
``judge(claim, evidence) -> bool`` (the ``--scorer``: a score of 0.5 or more entails).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..errors import CiterenderError
from ..options import unit_score

__all__ = [
    "ALCE_KEYS",
    "AT_MOST_CITATIONS",
    "AlceItem",
    "AlceScore",
    "Judge",
    "alce_items",
    "alce_problem",
    "alce_refs",
    "alce_sentences",
    "alce_text",
    "document_text",
    "entailment",
    "qampari_sentences",
    "remove_citations",
    "score_item",
]

#: eval.py's ``--at_most_citations`` default
AT_MOST_CITATIONS = 3
#: the per-item values a result holds under ``alce``
ALCE_KEYS = (
    "alce_citation_recall", "alce_citation_precision", "sentences", "citations", "entailed_sentences", "judge_problems",
)  # fmt: skip
#: ``judge(claim, evidence)``: does the evidence entail the claim?
Judge = Callable[[str, str], bool]

_REF = re.compile(r"\[\d+")
_SPACED_REF = re.compile(r" \[\d+")


@dataclass(frozen=True)
class AlceItem:
    """One item of an ALCE result file: the question, the model's output, and its documents
    (title, passage) in the order the output's ``[n]`` numbers them."""

    question: str
    output: str
    docs: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class AlceScore:
    """One item's scores as eval.py computes them (None: the output has no sentence, and the
    item is left out of the averages)."""

    recall: float | None
    precision: float | None
    sentences: int
    citations: int
    entailed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "alce_citation_recall": self.recall,
            "alce_citation_precision": self.precision,
            "sentences": self.sentences,
            "citations": self.citations,
            "entailed_sentences": self.entailed,
        }


def alce_items(data: object) -> list[AlceItem]:
    """The items of an ALCE result file (``{"args", "data": [...]}``) or of its ``data`` list."""
    if isinstance(data, Mapping) and "data" in data:
        data = data["data"]
    if not isinstance(data, list):
        raise CiterenderError(
            "not an ALCE result file: expected {'data': [...]} or a list of items",
            hint="give the JSON file ALCE's run.py wrote",
        )
    return [_item(row, k) for k, row in enumerate(data)]


def _item(row: object, k: int) -> AlceItem:
    if not isinstance(row, Mapping) or not isinstance(row.get("output"), str):
        raise CiterenderError(f"item {k + 1} has no 'output' text", hint="each item needs an 'output' string")
    docs = row.get("docs") or []
    if not isinstance(docs, list):
        raise CiterenderError(f"item {k + 1}: 'docs' must be a list")
    shown = []
    for n, doc in enumerate(docs):
        if not isinstance(doc, Mapping):
            raise CiterenderError(f"item {k + 1}: document {n + 1} is not an object")
        shown.append((str(doc.get("title", "")), document_text(doc)))
    question = row.get("question")
    return AlceItem(question if isinstance(question, str) else "", row["output"], tuple(shown))


def document_text(doc: Mapping[str, Any]) -> str:
    """A document's passage as eval.py's ``_format_document`` reads it (QA-extracted docs carry ``sent``)."""
    return str(doc["sent"] if "sent" in doc else doc.get("text", ""))


def entailment(scorer: Any, claim: str, evidence: str) -> bool | None:
    """Does ``scorer`` find ``evidence`` supports ``claim`` (a score of 0.5 or more)? None when it
    raises or gives no number in [0, 1]: a team's model gives no verdict, never our crash."""
    try:
        score = unit_score(scorer.score(claim, evidence))
    except Exception:
        return None
    return None if score is None else score >= 0.5


def remove_citations(sentence: str) -> str:
    """A sentence without its citations, as ALCE's ``utils.remove_citations`` leaves it."""
    return _REF.sub("", _SPACED_REF.sub("", sentence)).replace(" |", "").replace("]", "")


def alce_refs(sentence: str) -> list[int]:
    """The 0-based documents a sentence cites, as eval.py reads them (``[0]`` gives -1)."""
    return [int(m.group(0)[1:]) - 1 for m in _REF.finditer(sentence)]


def alce_text(output: str) -> str:
    """The answer eval.py scores: the output stripped, its first line, ``<|im_end|>`` removed."""
    return output.strip().split("\n")[0].replace("<|im_end|>", "")


def alce_sentences(output: str) -> list[str]:
    """The sentences eval.py scores: the output's first line, split by Punkt."""
    return [str(s) for s in _punkt().tokenize(alce_text(output))]


@cache
def _punkt() -> Any:
    """NLTK's Punkt with English parameters when their data is installed, else untrained."""
    try:
        from nltk.tokenize.punkt import PunktSentenceTokenizer
    except ImportError:
        raise CiterenderError(
            "ALCE's sentence split needs the alce extra (citerender[alce]): nltk is not installed",
            hint="install it from the citerender clone: pip install -e '.[alce]'",
        ) from None
    try:
        from nltk.tokenize import PunktTokenizer

        return PunktTokenizer("english")
    except (LookupError, ImportError, OSError):
        return PunktSentenceTokenizer()


def _premise(docs: Sequence[tuple[str, str]], ids: Iterable[int]) -> str:
    return "\n".join(f"Title: {docs[i][0]}\n{docs[i][1]}" for i in ids)


def qampari_sentences(question: str, output: str) -> list[str]:
    """The "sentences" eval.py scores for QAMPARI (a list of answers): the question and each
    comma-separated answer of the output's first line."""
    text = alce_text(output).rstrip().rstrip(".").rstrip(",")
    return [question + " " + x.strip() for x in text.split(",")]


def score_item(item: AlceItem, judge: Judge, *, qampari: bool = False) -> AlceScore:
    """eval.py's ``compute_autoais`` on one item (see the module docstring); ``qampari``: as
    eval.py scores a file whose path names QAMPARI (:func:`qampari_sentences`)."""
    sents = qampari_sentences(item.question, item.output) if qampari else alce_sentences(item.output)
    if not sents:
        return AlceScore(None, None, 0, 0, 0)
    docs = item.docs

    def entails(ids: Sequence[int], claim: str) -> bool:
        return bool(judge(claim, _premise(docs, ids)))

    entailed = counted = citations = 0
    for sent in sents:
        claim = remove_citations(sent).strip()
        ref = alce_refs(sent)
        if not ref or any(r >= len(docs) for r in ref):
            continue  # no citation, or one past the last document: 0, no judge call
        ref = ref[:AT_MOST_CITATIONS]
        citations += len(ref)
        joint = entails(ref, claim)
        entailed += joint
        if joint and len(ref) > 1:
            for r in ref:
                if entails([r], claim):
                    counted += 1
                    continue
                rest = list(ref)
                rest.remove(r)  # the first occurrence, as eval.py's list.remove
                counted += not entails(rest, claim)
        else:
            counted += joint
    return AlceScore(entailed / len(sents), counted / citations if citations else 0.0, len(sents), citations, entailed)


def alce_problem(value: object) -> str | None:
    """Why a result's ``alce`` is not per-item values :func:`check_alce` could have made (None: it is)."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or set(value) != set(ALCE_KEYS):
        return "its 'alce' is not ALCE's per-item values"
    for k in ALCE_KEYS[:2]:
        v = value[k]
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1):
            return f"alce.{k} is {str(v)[:40]!r}, not a share"
    if not all(isinstance(value[k], int) and not isinstance(value[k], bool) and value[k] >= 0 for k in ALCE_KEYS[2:]):
        return "alce's counts are not counts"
    return None
