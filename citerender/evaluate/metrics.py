"""Citation quality as rows: one answer's claims and counts as plain data (what
:func:`citerender.evaluate.records.check_record` returns), and their sums over a group, with 95%
intervals over answers (:mod:`.intervals`: claims of one answer are not independent) — the same
code on one machine and after a cluster's map. :func:`definitions` says what each rate of
:data:`METRICS` divides by; the judge is citerender's lexical support checks, to which a scorer
(``--scorer``) adds a model's verdict.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeGuard

from ..evidence.claims import Claim
from ..evidence.support import LOW
from ..evidence.words import content_stems
from ..options import SupportScorer
from .alce import alce_problem, entailment
from .intervals import ratio_interval

__all__ = [
    "COUNTS", "METRICS", "VERDICT_NAMES", "Totals", "answer_metrics", "claim_rows", "definitions", "rate", "relevant_citations",
    "result_problem", "wilson",
]  # fmt: skip

#: our verdicts as a dataset names them (``weak`` is ALCE's partial support)
VERDICT_NAMES = {"supported": "supported", "weak": "partial", "unsupported": "unsupported", "unchecked": "unchecked"}
#: the rates of a group: (name, numerator, denominator) over :class:`Totals` fields
METRICS = (
    ("citation_coverage", "cited_sentences", "sentences"),
    ("support_rate", "supported", "checked"),
    ("citation_recall", "supported", "cited_claims"),
    ("citation_precision", "relevant_citations", "judged_citations"),
    ("unknown_id_rate", "unknown_ids", "citing_places"),
    ("invented_locator_rate", "invented_locators", "citing_places"),
)
#: the counts of one answer's metrics (summed over a group by :class:`Totals`)
COUNTS = (
    "answers", "sentences", "cited_sentences", "cited_claims", "uncited_factual", "checked", "supported",
    "partial", "unsupported", "unchecked", "judged_citations", "relevant_citations", "citing_places",
    "unknown_ids", "invented_locators", "placement_problems",
)  # fmt: skip


def definitions(scored: bool) -> dict[str, str]:
    """What each rate divides by, in words (the summary and the report say it); ``scored``: a
    scorer decided which citations are relevant."""
    relevant = (
        "the scorer finds its passage alone supports the claim, or the claim's other citations without it no"
        " longer do (ALCE's rule)"
        if scored
        else "its passage shares at least a quarter of the claim's content words (no scorer was given)"
    )
    return {
        "citation_coverage": "sentences with a citation, divided by all sentences of the answers",
        "support_rate": "claims judged supported, divided by checked claims (a claim is the words one citation"
        " group closes; a claim whose cited source holds no text is unchecked and left out)",
        "citation_recall": "claims judged supported by their citations together, divided by cited claims (every"
        " claim a citation closes, checked or not); sentences without a citation are not counted (citation"
        " coverage counts them), unlike ALCE's citation recall, which divides by all sentences",
        "citation_precision": "relevant citations, divided by the citations of checked claims; a citation is"
        f" relevant when its claim is supported (fully or partly) and it is the claim's only citation, or {relevant}",
        "unknown_id_rate": "citing places naming an id the sources lack, divided by citing places",
        "invented_locator_rate": "citing places naming lines a source does not have, divided by citing places",
    }


def claim_rows(text: str, claims: Sequence[Claim], scorer: SupportScorer | None = None) -> list[dict[str, Any]]:
    """One row per claim: its text and span in ``text``, what it cites, the verdict, the checks
    that fired, the scorer's score and which citations are relevant (decided by ``scorer`` when
    there is one, see :func:`relevant_citations`)."""
    rows = []
    for c in claims:
        end = _offset(text, c.line, c.column)
        start = text.rfind(c.text, 0, end + 1) if c.text else -1
        verdict = VERDICT_NAMES.get(c.verdict, c.verdict)
        rows.append(
            {
                "claim": c.text,
                "line": c.line,
                "column": c.column,
                "span": [start, start + len(c.text)] if start != -1 else None,
                "cited": [
                    {"id": e.source_id, "number": e.number, "lines": list(e.lines) if e.lines else None}
                    for e in c.evidence
                ],
                "verdict": verdict,
                "checks": list(c.codes),
                "reasons": list(c.reasons),
                "score": c.score,
                "relevant": relevant_citations(c, verdict, scorer),
            }
        )
    return rows


def _offset(text: str, line: int, column: int) -> int:
    at = 0
    for _ in range(line - 1):
        nl = text.find("\n", at)
        if nl == -1:
            break
        at = nl + 1
    return min(at + column - 1, len(text))


def relevant_citations(c: Claim, verdict: str, scorer: SupportScorer | None = None) -> list[bool]:
    """Which citations of a claim are relevant (:func:`definitions` says when); where the scorer
    gives no number in [0, 1], the lexical rule decides, as without a scorer."""
    if verdict not in ("supported", "partial"):
        return [False] * len(c.evidence)
    if len(c.evidence) == 1:
        return [True]
    words = content_stems(c.text)
    lexical = [not words or len(words & content_stems(e.text)) / len(words) >= LOW for e in c.evidence]
    if scorer is None:
        return lexical
    out = []
    for k, e in enumerate(c.evidence):
        alone = entailment(scorer, c.text, e.text)
        rest = "\n".join(o.text for j, o in enumerate(c.evidence) if j != k and o.text)
        others = None if alone else entailment(scorer, c.text, rest)
        out.append(True if alone else lexical[k] if alone is None or others is None else not others)
    return out


def answer_metrics(
    rows: Sequence[Mapping[str, Any]], quality: Mapping[str, Any], codes: Iterable[str]
) -> dict[str, Any]:
    """An answer's counts (the :class:`Totals` fields) from its claim rows, its quality report and
    its diagnostics' codes."""
    codes = list(codes)
    verdicts = [r["verdict"] for r in rows]
    judged = [flag for r in rows if r["verdict"] != "unchecked" for flag in r["relevant"]]
    places = int(quality.get("citations", 0)) + codes.count("CR101")
    counts = {
        "answers": 1,
        "sentences": int(quality.get("sentences", 0)),
        "cited_sentences": int(quality.get("cited_sentences", 0)),
        "cited_claims": len(rows),
        "uncited_factual": len(quality.get("uncited_factual", [])),
        "checked": sum(v != "unchecked" for v in verdicts),
        "supported": verdicts.count("supported"),
        "partial": verdicts.count("partial"),
        "unsupported": verdicts.count("unsupported"),
        "unchecked": verdicts.count("unchecked"),
        "judged_citations": len(judged),
        "relevant_citations": sum(judged),
        "citing_places": places,
        "unknown_ids": codes.count("CR101"),
        "invented_locators": codes.count("CR102") + codes.count("CR103"),
        "placement_problems": sum(c.startswith("CR3") and c not in ("CR308", "CR310") for c in codes),
    }
    return {**counts, **{name: rate(counts[a], counts[b]) for name, a, b in METRICS}}


def rate(num: int, den: int) -> float | None:
    """``num / den`` to four places, as every result holds it (None without a denominator)."""
    return round(num / den, 4) if den else None


def wilson(num: int, den: int, z: float = 1.96) -> tuple[float, float] | None:
    """The 95% Wilson score interval of ``num / den`` (None without a denominator): honest at
    small counts and at rates near 0 or 1, where the normal approximation is not."""
    if den <= 0:
        return None
    p = num / den
    centre = (p + z * z / (2 * den)) / (1 + z * z / den)
    half = z * math.sqrt(p * (1 - p) / den + z * z / (4 * den * den)) / (1 + z * z / den)
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


class Totals:
    """Counts summed over a group of answers, and their rates with 95% intervals over answers
    (:mod:`.intervals`); results reduced in any order, on any machine, give the same totals."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.failures = 0
        self.codes: Counter[str] = Counter()
        #: per rate: how many answers have each (numerator, denominator)
        self.pairs: dict[str, Counter[tuple[int, int]]] = {name: Counter() for name, _, _ in METRICS}
        self._summary: dict[str, Any] | None = None

    def add(self, result: Mapping[str, Any]) -> None:
        self._summary = None
        if result.get("failure"):
            self.failures += 1
            return
        m = result.get("metrics") or {}
        self.counts.update({k: v for k, v in m.items() if isinstance(v, int) and not isinstance(v, bool)})
        for name, a, b in METRICS:
            self.pairs[name][(int(m.get(a, 0)), int(m.get(b, 0)))] += 1
        self.codes.update(d["code"] for d in result.get("diagnostics") or [])

    def merge(self, other: Totals) -> Totals:
        out = Totals()
        for src in (self, other):
            out.counts.update(src.counts)
            out.codes.update(src.codes)
            for name, pairs in src.pairs.items():
                out.pairs[name].update(pairs)
            out.failures += src.failures
        return out

    def summary(self) -> dict[str, Any]:
        """Counts, codes and each rate: ``value``, ``ci95`` (over answers), ``n`` (its denominator)."""
        if self._summary is None:
            c = self.counts
            rates = {}
            for name, a, b in METRICS:
                num, den = c.get(a, 0), c.get(b, 0)
                rates[name] = {
                    "value": rate(num, den),
                    "ci95": ratio_interval(self.pairs[name]) if den else None,
                    "n": den,
                }
            self._summary = {"answers": c.get("answers", 0), "failures": self.failures, "counts": dict(sorted(c.items())),
                             "rates": rates, "codes": dict(sorted(self.codes.items(), key=lambda kv: (-kv[1], kv[0])))}  # fmt: skip
        return copy.deepcopy(self._summary)


def result_problem(result: Any) -> str | None:
    """Why ``result`` (a line of a results file, read back to resume) is not a result
    :func:`~citerender.evaluate.records.check_record` could have made, or None: a hand-edited or
    foreign line (a rate of -5, a diagnostic without a code) must not reach :class:`Totals`."""
    if not isinstance(result, Mapping):
        return f"a result is an object, not {type(result).__name__}"
    if "__failure__" in result:
        return str(result["__failure__"])
    return _fields_problem(result) or _rows_problem(result)


def _fields_problem(result: Mapping[str, Any]) -> str | None:
    """What is wrong with the result's fields, if anything: one missing or unknown, or one of the
    wrong type (the id, failure, row, and the columns, metrics, diagnostics and claims containers)."""
    missing = [k for k in ("id", "columns", "diagnostics", "claims", "metrics", "failure") if k not in result]
    if missing:
        return f"it has no {', '.join(map(repr, missing))}"
    rid, failure = result["id"], result["failure"]
    if isinstance(rid, bool) or not isinstance(rid, str | int) or rid == "":
        return "its id is not text"
    if failure is not None and not isinstance(failure, str):
        return "its failure is neither null nor text"
    row = result.get("row")
    if row is not None and (isinstance(row, bool) or not isinstance(row, int) or row < 1):
        return "its row is not a row number"
    for key, kind in (("columns", dict), ("metrics", dict), ("diagnostics", list), ("claims", list)):
        if not isinstance(result.get(key), kind):
            return f"its {key!r} is not {'an object' if kind is dict else 'a list'}"
    unknown = sorted(set(result) - _RESULT_KEYS)
    if unknown:
        return f"unknown field {unknown[0]!r}"
    return None


def _rows_problem(result: Mapping[str, Any]) -> str | None:
    """What is wrong with what the fields hold, if anything: the ALCE scores, a diagnostic, a claim
    row, or metrics that are not the counts and rates of its claims."""
    problems = itertools.chain(
        [alce_problem(result.get("alce"))],
        map(_diagnostic_problem, result["diagnostics"]),
        map(_claim_problem, result["claims"]),
    )
    return next((p for p in problems if p is not None), None) or _metrics_problem(
        result["metrics"], result["claims"], failed=result["failure"] is not None
    )


_RESULT_KEYS = {"id", "row", "columns", "diagnostics", "claims", "metrics", "failure", "alce"}
_CLAIM_KEYS = {"claim", "line", "column", "span", "cited", "verdict", "checks", "reasons", "score", "relevant"}


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _number(v: Any) -> TypeGuard[float]:
    return isinstance(v, float | int) and not isinstance(v, bool)


def _texts(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(x, str) for x in v)


def _pair(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(_count(x) for x in v) and v[0] <= v[1]


def _diagnostic_problem(d: Any) -> str | None:
    if not isinstance(d, Mapping) or not isinstance(d.get("code"), str) or not isinstance(d.get("message"), str):
        return "a diagnostic without a code and message"
    if d.get("severity", "info") not in ("error", "warning", "info"):
        return f"a diagnostic's severity is {str(d.get('severity'))[:20]!r}"
    if not all(d.get(k) is None or _count(d[k]) for k in ("line", "column")):
        return "a diagnostic's line or column is not a number"
    if not all(d.get(k) is None or isinstance(d[k], str) for k in ("hint", "name")):
        return "a diagnostic's hint or name is not text"
    return None


def _claim_problem(c: Any) -> str | None:
    """Why ``c`` is not a claim row :func:`claim_rows` could have made (its keys, each field's
    type and range), or None."""
    if not isinstance(c, Mapping) or set(c) != _CLAIM_KEYS:
        return "a claim is not a claim row"
    cited = c["cited"]
    ok = (
        isinstance(c["claim"], str)
        and _claim_place(c)
        and c["verdict"] in VERDICT_NAMES.values()
        and _texts(c["checks"])
        and _texts(c["reasons"])
        and (c["score"] is None or (_number(c["score"]) and 0 <= c["score"] <= 1))  # null: no scorer
        and isinstance(cited, list)
        and all(_cited_source(e) for e in cited)
        and isinstance(c["relevant"], list)
        and len(c["relevant"]) == len(cited)
        and all(isinstance(x, bool) for x in c["relevant"])
    )
    return None if ok else f"a claim row has a field of the wrong type or out of range ({str(c['claim'])[:40]!r})"


def _claim_place(c: Mapping[str, Any]) -> bool:
    """Where a claim is in the answer: its line and column, and its span (offsets) or null."""
    return _count(c["line"]) and _count(c["column"]) and (c["span"] is None or _pair(c["span"]))


def _cited_source(e: Any) -> bool:
    """A source a claim cites: its id, and its number and cited lines when it has them."""
    return (
        isinstance(e, Mapping)
        and isinstance(e.get("id"), str)
        and (e.get("number") is None or _count(e["number"]))
        and (e.get("lines") is None or _pair(e["lines"]))
    )


def _metrics_problem(m: Mapping[str, Any], claims: list[Any], *, failed: bool) -> str | None:
    if failed and not m:
        return None
    unknown = sorted(set(m) - set(COUNTS) - {name for name, _, _ in METRICS})
    if unknown:
        return f"unknown metric {unknown[0]!r}"
    for k in COUNTS:
        if not _count(m.get(k)):
            return f"metrics.{k} is {str(m.get(k))[:40]!r}, not a count"
    if m["answers"] != 1:
        return f"metrics.answers is {m['answers']}, not 1"
    verdicts = [c["verdict"] for c in claims]
    if m["cited_claims"] != len(claims) or any(m[v] != verdicts.count(v) for v in VERDICT_NAMES.values()):
        return "metrics do not count its claims"
    for name, a, b in METRICS:
        v, want = m.get(name), rate(m[a], m[b])
        ok = v is None if want is None else _number(v) and abs(v - want) < 1e-9
        if not ok or (want is not None and not 0 <= want <= 1):
            return f"metrics.{name} is {str(v)[:40]!r}, not {m[a]}/{m[b]}"
    return None
