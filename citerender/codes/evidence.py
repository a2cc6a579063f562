"""Codes CR4xx: does the cited passage support the claim? (on in check; precision over recall)"""

from __future__ import annotations

from .kinds import Code, Severity

ROWS = [
    Code(
        "CR401",
        "unsupported-number",
        Severity.WARNING,
        "a number, amount, date or duration in the claim appears nowhere in the cited passage",
        "check the figure against the source, or cite the passage that states it",
    ),
    Code(
        "CR402",
        "contradicts-evidence",
        Severity.WARNING,
        "the claim negates what the cited passage states, or the reverse (not / must / may)",
        "state what the source says, with its negation and its must or may",
    ),
    Code(
        "CR403",
        "better-source",
        Severity.WARNING,
        "the cited passage barely shares the claim's words while another source matches it well",
        "cite the source named in the message, or check the claim",
    ),
    Code(
        "CR404",
        "better-lines",
        Severity.WARNING,
        "the locator points at lines unrelated to the claim while nearby lines of the source match",
        "cite the lines named in the message",
    ),
    Code(
        "CR405",
        "misquoted",
        Severity.WARNING,
        "a quotation in the claim is not in the cited passage word for word",
        "quote the source exactly, or drop the quotation marks",
    ),
    Code(
        "CR406",
        "scorer-unsupported",
        Severity.WARNING,
        "the configured support scorer rates the claim as not supported by its passage",
        "check the claim against the source",
    ),
    Code(
        "CR407",
        "scorer-failed",
        Severity.WARNING,
        "the configured support scorer raised an error or returned something other than a number in [0, 1]: the claim is unchecked",
        "fix the scorer: score(claim, evidence) must return a finite float between 0 and 1",
    ),
]
