"""A deterministic entailment judge for the ALCE tests (``--scorer alce_judge:scorer``): the
evidence entails the claim when every content word of the claim is among the evidence's words."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z0-9]+")
STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "was",
        "were",
        "be",
        "of",
        "in",
        "on",
        "at",
        "to",
        "and",
        "or",
        "it",
        "its",
        "by",
        "for",
        "as",
        "with",
        "that",
        "this",
    ]
)


def content(text: str) -> set[str]:
    """The lower-cased words of ``text`` that are not stop words."""
    return set(WORD.findall(text.lower())) - STOP


def scorer(claim: str, evidence: str) -> float:
    """1.0 when every content word of ``claim`` is in ``evidence``, else 0.0."""
    return 1.0 if content(claim) <= content(evidence) else 0.0
