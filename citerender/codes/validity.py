"""Codes CR1xx: is what a marker says valid — its source, its locator, its form."""

from __future__ import annotations

from .kinds import Code, Severity

ROWS = [
    Code(
        "CR101",
        "unknown-source",
        Severity.ERROR,
        "a citation names a source id the registry does not have",
        "cite only ids present in the sources, or add the source",
    ),
    Code(
        "CR102",
        "locator-out-of-range",
        Severity.ERROR,
        "a line locator points past the source's lines",
        "cite lines the source has (see its [L1]… numbering)",
    ),
    Code(
        "CR103",
        "reversed-range",
        Severity.ERROR,
        "a line range runs backwards (L13-L8)",
        "write the lower line first: L8-L13",
    ),
    Code(
        "CR104",
        "empty-marker",
        Severity.WARNING,
        "a marker holds no source id",
        "put at least one source id between the delimiters, or remove the marker",
    ),
    Code(
        "CR105",
        "unknown-family",
        Severity.WARNING,
        "a marker of a family that is not a citation (a ChatGPT widget or a typo) was removed",
        "use the citation family (cite) or drop the marker",
    ),
    Code(
        "CR106",
        "malformed-marker",
        Severity.ERROR,
        "a marker could not be read and was removed",
        "write markers as {CITATION_START}cite{CITATION_DELIMITER}<id>[{CITATION_DELIMITER}L<n>-L<m>]{CITATION_STOP}",
    ),
    Code(
        "CR107",
        "unterminated-marker",
        Severity.WARNING,
        "a marker has no closing character",
        "end each marker with {CITATION_STOP} before any other text",
    ),
    Code(
        "CR108",
        "locator-normalised",
        Severity.INFO,
        "a locator or id list was written loosely and was normalised (en dash, spaces, commas)",
        "write line locators as L8-L13 and separate ids with the delimiter",
    ),
    Code(
        "CR109",
        "stray-marker-character",
        Severity.WARNING,
        "a marker character outside any marker was removed",
        "remove stray private-use characters U+E200-U+E206 from the answer",
    ),
    Code(
        "CR110",
        "no-lines",
        Severity.WARNING,
        "a line locator cites a source that has no numbered lines",
        "drop the locator or give the source numbered lines",
    ),
    Code(
        "CR112",
        "no-sources",
        Severity.WARNING,
        "the answer was rendered without sources: its citations are shown but none could be checked",
        "pass the sources the model saw (--sources FILE, or a registry)",
    ),
    Code(
        "CR113",
        "repo-file-missing",
        Severity.ERROR,
        "a Codex file citation names a file the repository checkout does not have (or a path outside it)",
        "cite files of the repository, or point --repo at the checkout the answer was written from",
    ),
    Code(
        "CR114",
        "input-text-cleaned",
        Severity.WARNING,
        "text read from a sources file, a provider response or an export held marker forms where it is displayed (a source's title, lines or text, a Search Suggestions chip, the title or fallback text a copied ChatGPT link shows: removed) or lone surrogates (replaced by U+FFFD)",
        "clean the file, or the tool output it was made from",
    ),
]
