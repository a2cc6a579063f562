"""Content words, their stems, negation and modality, and quotations: what the support checks
compare between a claim and its evidence.

Multilingual-safe rather than English-only: words are Unicode ``\\w`` runs, case-folded; Latin
words are stemmed with the Snowball English stemmer (the same function on both sides, so a
French word stems consistently even if not linguistically); scripts written without spaces (Chinese,
Japanese, Thai) are read as overlapping character pairs, which is how search engines index them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

from .quantities import NUMBER_WORDS

__all__ = ["NO_SPACE_SCRIPT", "Stance", "content_stems", "quotations", "quote_in", "stance", "tokens"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
NO_SPACE_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f]")

#: words too common to say what a sentence is about (English, French, German, Spanish)
STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "else",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "doing",
        "have",
        "has",
        "had",
        "having",
        "it",
        "its",
        "it's",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "their",
        "them",
        "they",
        "he",
        "she",
        "his",
        "her",
        "him",
        "we",
        "our",
        "us",
        "you",
        "your",
        "i",
        "me",
        "my",
        "mine",
        "yours",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "every",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "so",
        "than",
        "too",
        "very",
        "just",
        "also",
        "can't",
        "s",
        "t",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "can",
        "could",
        "need",
        "needs",
        "needed",
        "not",
        "no",
        "nor",
        "never",
        "without",
        "none",
        "neither",
        "n't",
        "per",
        "up",
        "down",
        "out",
        "off",
        "again",
        "further",
        "once",
        "le",
        "la",
        "les",
        "un",
        "une",
        "des",
        "du",
        "de",
        "et",
        "ou",
        "en",
        "au",
        "aux",
        "ce",
        "ces",
        "est",
        "sont",
        "pour",
        "par",
        "sur",
        "dans",
        "avec",
        "sans",
        "qui",
        "que",
        "der",
        "die",
        "das",
        "ein",
        "eine",
        "und",
        "oder",
        "ist",
        "sind",
        "mit",
        "für",
        "von",
        "zu",
        "im",
        "den",
        "dem",
        "des",
        "el",
        "los",
        "las",
        "y",
        "o",
        "es",
        "son",
        "con",
        "para",
        "por",
    ]
)

#: words that turn what follows around; "non" covers "non-renewal" once hyphens split words,
#: "unless" is "if not" (so "unless notice is given" agrees with "when no notice is given")
NEGATIONS = frozenset(["not", "no", "never", "without", "none", "neither", "nor", "cannot", "can't", "won't", "isn't", "aren't", "doesn't", "don't", "didn't", "wasn't", "weren't", "shouldn't", "mustn't", "non", "unless", "ne", "pas", "jamais", "nicht", "kein", "keine"])  # fmt: skip
#: modal verbs and what they say: permission or obligation
MODALS = {**dict.fromkeys(["may", "might", "can", "could"], "may"), **dict.fromkeys(["must", "shall"], "must")}


#: left out of content words: stop words, negations (compared by :func:`stance`) and number
#: words (compared as quantities)
_NOT_CONTENT = STOP_WORDS | NEGATIONS | NUMBER_WORDS


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("english")


def tokens(text: str) -> list[str]:
    """The words of ``text``, case-folded and NFKC-normalised (full-width letters, ligatures)."""
    return _WORD.findall(_normalized(text))


def _normalized(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold().replace("’", "'")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word)) if word.isascii() else word


def _pairs(word: str) -> Iterator[str]:
    """A word of a script without spaces, as overlapping character pairs (a lone character as itself)."""
    if len(word) == 1:
        yield word
    for i in range(len(word) - 1):
        yield word[i : i + 2]


def content_stems(text: str) -> set[str]:
    """The stems of the content words of ``text``: stop words, numbers and one-letter words out."""
    out: set[str] = set()
    norm = _normalized(text)
    pairs = NO_SPACE_SCRIPT.search(norm) is not None  # one search of the text, not one a word, most often
    for w in _WORD.findall(norm):
        if pairs and NO_SPACE_SCRIPT.search(w):
            out.update(_pairs(w))
        elif w not in _NOT_CONTENT and len(w) > 1 and not w.isdigit():
            out.add(_stem(w))
    return out


@dataclass(frozen=True, slots=True)
class Stance:
    """What a sentence explicitly says of its words: which it negates somewhere, which it states
    plainly somewhere, which a modal verb governs (``may`` or ``must``), whether it holds any
    negation at all, and the neighbours (previous and next content words) of every occurrence,
    so that a word is compared across sentences only where it is used alike."""

    negated: frozenset[str]
    plain: frozenset[str]
    modal: dict[str, str]
    has_negation: bool
    neighbours: dict[str, set[tuple[str | None, str | None]]]

    def alike(self, other: Stance, stem: str) -> bool:
        """Is ``stem`` used alike here and in ``other``: one occurrence each with the same
        previous or the same next content word?"""
        for p, n in self.neighbours.get(stem, ()):
            for q, m in other.neighbours.get(stem, ()):
                if (p is not None and p == q) or (n is not None and n == m):
                    return True
        return False


def stance(text: str) -> Stance:
    """The stance of ``text``: a negation or a modal governs the first content word after it
    (stop words skipped). A modal under a negation (``must not``, ``cannot``) is left out: a
    prohibition next to a conditional permission is too often consistent to call."""
    negated: set[str] = set()
    plain: set[str] = set()
    modal: dict[str, str] = {}
    seq: list[str] = []
    neg = False
    mod: str | None = None
    cues = 0
    for w in tokens(text):
        if w in NEGATIONS:
            neg, cues = True, cues + 1
            if w in ("cannot", "can't", "won't", "mustn't", "shouldn't"):
                mod = None
            continue
        if w in MODALS:
            mod = None if neg else MODALS[w]
            continue
        if w in STOP_WORDS or w.isdigit():
            continue
        stem = w if NO_SPACE_SCRIPT.search(w) else _stem(w)
        seq.append(stem)
        (negated if neg else plain).add(stem)
        if mod is not None:
            modal.setdefault(stem, mod)
        neg, mod = False, None
    neighbours: dict[str, set[tuple[str | None, str | None]]] = {}
    for i, stem in enumerate(seq):
        prev = seq[i - 1] if i else None
        nxt = seq[i + 1] if i + 1 < len(seq) else None
        neighbours.setdefault(stem, set()).add((prev, nxt))
    return Stance(frozenset(negated), frozenset(plain), modal, cues > 0, neighbours)


_QUOTE = re.compile(r"[\"“«„「『]([^\"“”«»„「」『』\n]{8,600})[\"”»“」』]")
_SPACE = re.compile(r"\s+")
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…|\[\s*(?:\.\.\.|…)\s*\])\s*")


def quotations(text: str) -> list[str]:
    """Passages the claim puts in quotation marks: at least two words (a quoted single word is
    a term, not a quotation)."""
    return [m.group(1) for m in _QUOTE.finditer(text) if len(m.group(1).split()) >= 2]


_QUOTE_MARKS = str.maketrans("’‘“”«»", '\'\'""""')


def _plain(text: str) -> str:
    return _SPACE.sub(" ", _normalized(text).translate(_QUOTE_MARKS)).strip()


def quote_in(quote: str, evidence: str) -> bool:
    """Is ``quote`` in ``evidence`` verbatim, modulo spacing, case and the kind of quotation
    marks? An ellipsis (``…``, ``...``, ``[…]``) stands for an omission: the parts must appear in order."""
    haystack = _plain(evidence)
    pos = 0
    for part in _ELLIPSIS.split(quote):
        needle = _plain(part).strip(" .,;:")
        if not needle:
            continue
        found = haystack.find(needle, pos)
        if found == -1:
            return False
        pos = found + len(needle)
    return True
