"""Does the cited passage support the claim? Deterministic checks (CR401–CR405), tuned for
precision over recall, and an optional scorer (CR406); each claim gets a verdict.

* CR401 a number, amount, date or duration of the claim is nowhere in the passage;
* CR402 the claim negates what the passage states (or the reverse), or says *must* where it
  says *may*, on the words they share;
* CR403 the passage barely shares the claim's words while another source matches it well;
* CR404 the locator's lines are unrelated while nearby lines of the same source match;
* CR405 a quotation is not in the passage word for word;
* CR406 the configured scorer rates the support below one half.

Verdicts: ``unsupported`` (CR401–CR403, CR405, CR406), ``weak`` (CR404, or few shared words and
no better passage anywhere), ``supported``, ``unchecked`` (nothing to compare: the source holds
no text). The registry is indexed once, and only for claims whose passage does not match.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..options import SupportScorer, scorer_name, unit_score
from ..sources.model import Registry
from ..syntax.types import line_locator
from .claims import Claim
from .quantities import Quantity, quantities
from .words import NO_SPACE_SCRIPT, content_stems, quotations, quote_in, stance

__all__ = ["LOW", "Report", "check_support"]

#: ``report(claim, code, message)``: what a check found, to report where the claim stands
Report = Callable[[Claim, str, str], None]

LOW = 0.25  # below this share of the claim's words, the passage does not speak of the claim
GOOD = 0.6  # a passage sharing this much of the claim's words speaks of it
MARGIN = 0.35  # a better passage must beat the cited one by this much
HALF = 0.5  # cited lines sharing less than half the claim's words: nearby lines may be the ones meant
CLEAR = 0.8  # ... when lines of the same source share this much
MIN_WORDS = 3  # shorter claims (a table cell, "Yes.") are not judged on words; a better passage shares as many
NEARBY = 25  # lines around a locator searched for a better range
_SENTENCES = re.compile(r"(?<=[.!?\u3002\uff01\uff1f])\s+|\n")
_UNSUPPORTED = ("CR401", "CR402", "CR403", "CR405", "CR406")


def _script_letters(text: str) -> tuple[int, int]:
    """The letters of ``text``, and those of a script without spaces between words."""
    return sum(map(str.isalpha, text)), sum(1 for c in NO_SPACE_SCRIPT.findall(text) if c.isalpha())


def _mostly_spaceless(letters: int, spaceless_letters: int) -> bool:
    """Mostly written in a script without spaces between words?"""
    return bool(letters) and spaceless_letters * 2 > letters


def _share(claim: set[str], passage: set[str]) -> float:
    return len(claim & passage) / len(claim) if claim else 1.0


def _matches(q: Quantity, found: Sequence[Quantity]) -> bool:
    if isinstance(q.value, tuple):
        return any(f.value == q.value for f in found)
    for f in found:
        if f.value == q.value:
            return True
        if isinstance(f.value, tuple) and len(f.value) == 3 and q.value in (float(f.value[0]), float(f.value[2])):
            return True  # a year or a day written inside a date
    days = q.days()
    if days is not None:  # "two weeks" against "14 days", "a month" against "30 days"
        for f in found:
            other = f.days()
            if other is not None and other[0] <= days[1] and days[0] <= other[1]:
                return True
    return False


@dataclass
class _Index:
    """Every line of every source with text, by content word: built once, on first need."""

    lines: dict[str, list[set[str]]] = field(default_factory=dict)
    #: word → [(source id, [(source id, line index) …]) …], sources in registry order: a search
    #: leaves out the cited sources a whole list at a time
    postings: dict[str, list[tuple[str, list[tuple[str, int]]]]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # lines holding each word
    rank: dict[str, int] = field(default_factory=dict)  # each source's place in the registry

    @classmethod
    def of(cls, registry: Registry) -> _Index:
        idx = cls()
        for sid in registry:
            src = registry[sid]
            idx.rank[src.id] = len(idx.rank)
            rows = list(src.lines) if src.lines is not None else ([src.text] if src.text else [])
            stems = [content_stems(r) for r in rows]
            idx.lines[src.id] = stems
            for n, words in enumerate(stems):
                for w in words:
                    per = idx.postings.setdefault(w, [])
                    if not per or per[-1][0] != src.id:
                        per.append((src.id, []))
                    per[-1][1].append((src.id, n))
                    idx.counts[w] = idx.counts.get(w, 0) + 1
        return idx

    def best(self, claim: set[str], skip: set[str]) -> tuple[float, str, int, int] | None:
        """The best passage of one to three lines outside ``skip``: (share, source, first, last)."""
        lines: list[tuple[str, int]] = []  # every line holding each word, counted once at the end
        unsearched = 0
        for w in claim:
            if self.counts.get(w, 0) > 200:  # a word on every page says nothing of where the claim is
                unsearched += 1
                continue
            for sid, keys in self.postings.get(w, ()):
                if sid not in skip:
                    lines.extend(keys)
        hits = Counter(lines)
        size = len(claim)
        bit = {w: 1 << k for k, w in enumerate(claim)}  # a line's share of the claim as a bit mask
        masks: dict[str, dict[int, int]] = {}  # neighbouring hits share lines: each is read once
        best: tuple[float, str, int, int] | None = None
        # the twenty lines holding most of the claim, ties to the first source listed and its first
        # line: the same answer on every run, whatever the string hashing
        rank = self.rank
        top = heapq.nsmallest(20, hits.items(), key=lambda hit: (-hit[1], rank[hit[0][0]], hit[0][1]))
        for (sid, n), count in top:
            # hits come most first: a passage not yet read holds at most `count` searched words a
            # line, three lines, and every unsearched word; once the best beats that, none can
            if best is not None and size and best[0] > (3 * count + unsearched) / size + 1e-9:
                break
            best = self._around(sid, n, bit, size, masks.setdefault(sid, {}), best)
        return best

    def _around(
        self,
        sid: str,
        n: int,
        bit: dict[str, int],
        size: int,
        per: dict[int, int],
        best: tuple[float, str, int, int] | None,
    ) -> tuple[float, str, int, int] | None:
        """``best`` or a better passage of one to three lines of ``sid`` holding its line ``n``
        (``per``: the lines' word masks read so far, each line read once)."""
        rows = self.lines[sid]
        lo = max(0, n - 2)
        near = []
        for i in range(lo, min(len(rows), n + 3)):
            m = per.get(i)
            if m is None:
                m = 0
                for w in bit.keys() & rows[i]:
                    m |= bit[w]
                per[i] = m
            near.append(m)
        k = n - lo
        for a in range(max(0, k - 2), k + 1):  # every passage of one to three lines holding line n
            found = 0
            for b in range(a, min(len(near), a + 3)):
                found |= near[b]
                if b < k:
                    continue
                share = found.bit_count() / size if size else 1.0
                # the best share; on a tie, the narrower passage
                if best is None or share > best[0] + 1e-9 or (share > best[0] - 1e-9 and b - a < best[3] - best[2]):
                    best = (share, sid, lo + a + 1, lo + b + 1)
        return best


@dataclass
class _Passage:
    """What the checks read of a cited passage, read once per piece (one cited source's lines,
    which many claims may cite) and merged for a claim citing several, as if joined by a newline."""

    letters: int
    spaceless_letters: int
    stems: set[str]
    quantities: list[Quantity]
    sentences: list[tuple[str, set[str]]]

    @property
    def spaceless(self) -> bool:
        """Mostly written in a script without spaces between words?"""
        return _mostly_spaceless(self.letters, self.spaceless_letters)

    @classmethod
    def of(cls, text: str) -> _Passage:
        return cls(
            *_script_letters(text),
            content_stems(text),
            quantities(text),
            [(s, content_stems(s)) for s in _SENTENCES.split(text)],
        )

    @classmethod
    def merged(cls, pieces: Sequence[_Passage]) -> _Passage:
        if len(pieces) == 1:
            return pieces[0]
        return cls(
            sum(p.letters for p in pieces),
            sum(p.spaceless_letters for p in pieces),
            set().union(*(p.stems for p in pieces)),
            [q for p in pieces for q in p.quantities],
            [s for p in pieces for s in p.sentences],
        )


#: the most passages kept with a registry (each a few sets of words; ranges of one source's lines
#: are at most lines² of them, so a bound)
MAX_KEPT_PASSAGES = 4096


class _Checker:
    def __init__(self, registry: Registry | None, scorer: SupportScorer | None, report: Report) -> None:
        self.registry, self.scorer, self.report = registry, scorer, report
        # what a cited passage holds is the same in every answer citing it: kept with the sources
        self.passages: dict[str, _Passage] = registry.derived("evidence.passages", dict) if registry is not None else {}

    def indexed(self, registry: Registry) -> _Index:
        """The registry's index of line words, built on first need and kept with the registry."""
        return registry.derived("evidence.index", lambda: _Index.of(registry))

    def passage(self, claim: Claim) -> _Passage:
        pieces = []
        for e in claim.evidence:
            if e.text:
                found = self.passages.get(e.text)
                if found is None:
                    found = _Passage.of(e.text)
                    if len(self.passages) < MAX_KEPT_PASSAGES:
                        self.passages[e.text] = found
                pieces.append(found)
        return _Passage.merged(pieces)

    def flag(self, claim: Claim, code: str, reason: str) -> None:
        claim.codes.append(code)
        claim.reasons.append(reason)
        self.report(claim, code, reason)

    def run(self, claim: Claim) -> None:
        evidence = claim.evidence_text
        if not evidence.strip() or not claim.text.strip():
            claim.verdict = "unchecked"
            claim.reasons.append("the cited source holds no text to check against")
            return
        passage = self.passage(claim)
        self.numbers(claim, passage)
        self.quotes(claim, evidence)
        words = content_stems(claim.text)
        # a Chinese claim, an English passage: their words cannot be compared
        if _mostly_spaceless(*_script_letters(claim.text)) != passage.spaceless:
            if not claim.codes:
                claim.verdict = "unchecked"
                claim.reasons.append("the claim and the cited passage are not in the same script")
                return
            weak = False
        else:
            self.polarity(claim, words, passage)
            weak = self.lexical(claim, words, passage)
        if self.scorer is not None:
            score = self.scored(claim, evidence)
            if score is None:
                claim.verdict = "unchecked"  # the lexical checks alone would pass what the scorer was asked to judge
                return
            claim.score = score
            if score < 0.5:
                self.flag(claim, "CR406", f"the support scorer rates this claim {score:.2f}")
        if any(c in _UNSUPPORTED for c in claim.codes):
            claim.verdict = "unsupported"
        elif weak or "CR404" in claim.codes:
            claim.verdict = "weak"
        else:
            claim.verdict = "supported"

    def scored(self, claim: Claim, evidence: str) -> float | None:
        """The scorer's verdict when it is a finite number in [0, 1]; otherwise (NaN, a string, an
        exception) None, reported (CR407) naming the scorer and what it did: a NaN once made the
        claim supported, since ``NaN < 0.5`` is false."""
        scorer = self.scorer
        assert scorer is not None
        name = scorer_name(scorer)
        try:
            value = scorer.score(claim.text, evidence)
        except Exception as e:  # a team's model: its failure is a verdict we cannot use, not our crash
            problem = f"raised {type(e).__name__}: {str(e)[:120]}"
        else:
            score = unit_score(value)
            if score is not None:
                return score
            problem = f"returned {repr(value)[:60]}, not a number in [0, 1]"
        claim.reasons.append(f"the support scorer {name} {problem}")
        self.report(claim, "CR407", f"the support scorer {name} {problem}: the claim is unchecked")
        return None

    def numbers(self, claim: Claim, passage: _Passage) -> None:
        found = passage.quantities
        for q in quantities(claim.text):
            if not _matches(q, found):
                said = [f.text for f in found if f.unit is not None and f.unit == q.unit]
                tail = f" (it says {', '.join(repr(s) for s in said[:3])})" if said else ""
                self.flag(claim, "CR401", f"{q.text!r} is not in the cited passage{tail}")

    def quotes(self, claim: Claim, evidence: str) -> None:
        for quote in quotations(claim.text):
            if not quote_in(quote, evidence):
                short = quote if len(quote) <= 60 else quote[:57] + "…"
                self.flag(claim, "CR405", f"the quotation {short!r} is not in the cited passage word for word")

    def polarity(self, claim: Claim, words: set[str], passage: _Passage) -> None:
        """Against the passage's sentence that shares most of the claim's words (at least half
        of them, and two): a negation on one side only, or must against may."""
        if len(words) < 2:
            return
        best, best_share, shared = "", 0.0, set()
        for sentence, stems in passage.sentences:
            common = words & stems
            if len(common) / len(words) > best_share:
                best, best_share, shared = sentence, len(common) / len(words), common
        if best_share < 0.5 or len(shared) < 2:
            return
        mine, theirs = stance(claim.text), stance(best)
        # a word one side only negates, the other only states, used alike on both sides
        claim_only = sorted((mine.negated - mine.plain) & (theirs.plain - theirs.negated) & shared)
        passage_only = sorted((theirs.negated - theirs.plain) & (mine.plain - mine.negated) & shared)
        claim_only = [w for w in claim_only if mine.alike(theirs, w)]
        passage_only = [w for w in passage_only if mine.alike(theirs, w)]
        if claim_only and not theirs.has_negation:
            self.flag(claim, "CR402", f"the claim negates {claim_only[0]!r}, the cited passage does not")
        elif passage_only and not mine.has_negation:
            self.flag(claim, "CR402", f"the cited passage negates {passage_only[0]!r}, the claim does not")
        for w in sorted(shared & mine.modal.keys() & theirs.modal.keys()):
            if mine.modal[w] != theirs.modal[w] and mine.alike(theirs, w):
                self.flag(
                    claim, "CR402", f"the claim says {mine.modal[w]!r} where the cited passage says {theirs.modal[w]!r}"
                )
                break

    def lexical(self, claim: Claim, words: set[str], passage: _Passage) -> bool:
        """True when the passage shares few of the claim's words (a weak claim)."""
        if len(words) < MIN_WORDS:
            return False
        share = _share(words, passage.stems)
        registry = self.registry
        if share >= HALF or registry is None:
            return share < LOW
        need = GOOD if share < LOW else CLEAR  # a passage sharing some words needs a clearer rival
        for ev in claim.evidence:  # a locator off by a few lines
            if ev.lines is not None and self.better_lines(claim, words, ev.source_id, ev.lines, share, need):
                return True
        found = self.indexed(registry).best(words, {e.source_id for e in claim.evidence})
        if found is not None and found[0] >= need and found[0] >= share + MARGIN and found[0] * len(words) >= MIN_WORDS:
            _, sid, a, b = found
            self.flag(
                claim,
                "CR403",
                f"the cited passage shares {share:.0%} of the claim's words; {sid} {line_locator(a, b)} shares {found[0]:.0%}",
            )
            return True
        return share < LOW

    def better_lines(
        self, claim: Claim, words: set[str], sid: str, cited: tuple[int, int], share: float, need: float
    ) -> bool:
        registry = self.registry
        src = registry.get(sid) if registry is not None else None
        if registry is None or src is None or src.lines is None:
            return False
        width = min(cited[1] - cited[0] + 1, 5)
        stems = self.indexed(registry).lines[sid][max(0, cited[0] - 1 - NEARBY) : cited[1] + NEARBY]
        offset = max(0, cited[0] - 1 - NEARBY)
        best: tuple[float, int, int] | None = None
        for a in range(len(stems) - width + 1):
            s = _share(words, set().union(*stems[a : a + width]))
            first = offset + a + 1
            distance = abs(first - cited[0])
            if best is None or s > best[0] + 1e-9 or (abs(s - best[0]) <= 1e-9 and distance < best[2]):
                best = (s, first, distance)
        if best is None or best[0] < need or best[0] < share + MARGIN or best[0] * len(words) < MIN_WORDS:
            return False
        first, last = best[1], best[1] + width - 1
        self.flag(
            claim, "CR404", f"lines {line_locator(first, last)} of {sid} match the claim better than the cited ones"
        )
        return True


def check_support(
    claims: Sequence[Claim],
    registry: Registry | None,
    scorer: SupportScorer | None,
    report: Report,
) -> None:
    """Run every check on ``claims`` (in place: verdict, reasons, codes, score) against the
    passages they cite (and, for a better passage, the rest of ``registry``); each finding is
    also passed to ``report``."""
    checker = _Checker(registry, scorer, report)
    for claim in claims:
        checker.run(claim)
