"""Claims and their evidence: for every citation group, the words it closes (its sentence, or the
clause since the previous citation in that sentence; a list item's or table cell's text) and the
passage it cites (the locator's lines, or the whole source without one). Plain data, and the
segmentation of a block's words (:func:`claim_texts`); the plugin's ``citerender_claims`` rule
reads the blocks."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field

from .sentences import TERMINAL

__all__ = ["GROUP", "Claim", "Evidence", "claim_texts"]

#: stands for a citation group in a block's words while sentences are split
GROUP = "\x00"
# the end of a sentence: terminal punctuation (and closing quotes or brackets) before a space,
# a citation or the end
_SENTENCE_END = re.compile(TERMINAL + r"(?=\s|\x00|$)")
# what separates clauses a citation may close on its own
_LEAD = re.compile(r"^[\s,;:\u2014\u2013-]*(?:and|but|or|while|whereas)?\b\s*", re.I)


@dataclass
class Evidence:
    """One cited passage: the source, its reference number, the lines (``None``: the whole
    source) and their text (empty when the source holds no text to check against)."""

    source_id: str
    number: int
    lines: tuple[int, int] | None
    text: str

    def to_dict(self) -> dict[str, object]:
        return {
            "source": self.source_id,
            "number": self.number,
            "lines": list(self.lines) if self.lines else None,
            "text": self.text,
        }


@dataclass
class Claim:
    """What one citation group claims, what it cites, and the verdict of the support checks."""

    text: str
    line: int
    column: int
    anchor: str
    evidence: list[Evidence]
    verdict: str = "unchecked"  # supported | weak | unsupported | unchecked
    reasons: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    score: float | None = None

    @property
    def evidence_text(self) -> str:
        return "\n".join(e.text for e in self.evidence if e.text)

    def to_dict(self) -> dict[str, object]:
        return {
            "claim": self.text,
            "line": self.line,
            "column": self.column,
            "anchor": self.anchor,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "codes": list(self.codes),
            "score": self.score,
            "evidence": [e.to_dict() for e in self.evidence],
        }


def claim_texts(flat: str) -> Iterator[tuple[int, str]]:
    """For each :data:`GROUP` placeholder in ``flat`` (a block's words), in order: (index of the
    group, the words it closes)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(flat)]
    previous = ""
    last = 0  # just after the previous citation group
    k = 0
    i = flat.find(GROUP)
    while i >= 0:
        j = bisect_right(ends, i) - 1  # the last sentence end at or before the group
        if j >= 0 and not flat[ends[j] : i].replace(GROUP, "").strip():
            stop, start = ends[j], (ends[j - 1] if j >= 1 else 0)  # it follows a finished sentence
        else:
            stop, start = i, (ends[j] if j >= 0 else 0)
        clause = start < last <= stop  # an earlier group inside this sentence: a clause of its own
        words = flat[max(start, last) if clause else start : stop].replace(GROUP, "").strip()
        if clause:
            words = _LEAD.sub("", words, count=1)
        if not words.strip(" .,;:"):
            words = previous  # right after another group, or alone in its block: the same claim
        yield k, words
        previous, last, k = words, i + 1, k + 1
        i = flat.find(GROUP, i + 1)
