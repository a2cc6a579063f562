"""The code table: every kind of problem citerender reports, its severity and the fix to suggest.
Marker characters are the guide's placeholders (``{CITATION_START}``): a diagnostic never carries a
marker in any form; ``citerender codes`` shows them as escapes. The single list of what we report;
the README's table is generated from it (``citerender codes``) and a test keeps the two equal."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["CODES", "CODE_TABLE", "Code", "Severity"]


class Severity(StrEnum):
    """How bad a diagnostic is; only ``error`` makes ``check`` and ``render`` exit 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Code:
    """One kind of problem: its stable code, short name, severity and the fix to suggest."""

    code: str
    name: str
    severity: Severity
    summary: str
    hint: str


CODE_TABLE = [
    # validity of what a marker says
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
        "text read from a sources file, a provider response or an export held marker forms where it is displayed (a source's title, lines or text: removed) or lone surrogates (replaced by U+FFFD)",
        "clean the file, or the tool output it was made from",
    ),
    # recognised dialects: read and rendered for what they mean
    Code(
        "CR201",
        "escaped-marker",
        Severity.INFO,
        "a marker written with literal escapes (a backslash, u, E200) was read as the real characters",
        "send the real characters, not their escapes",
    ),
    Code(
        "CR202",
        "copy-paste-marker",
        Severity.INFO,
        "a marker whose private-use characters were lost (citeturn0search0) was recovered",
        "keep the private-use characters when copying answers",
    ),
    Code(
        "CR203",
        "bracket-pipe-marker",
        Severity.INFO,
        "a bracket-pipe marker (【cite|…】) was read as a citation",
        "ask for the canonical {CITATION_START}cite{CITATION_DELIMITER}…{CITATION_STOP} form",
    ),
    Code(
        "CR204",
        "family-less-marker",
        Severity.INFO,
        "a marker without a family was read as a citation",
        "write the family: {CITATION_START}cite{CITATION_DELIMITER}…",
    ),
    Code(
        "CR205",
        "bare-anchor",
        Severity.INFO,
        "a bare {CITATION_DELIMITER}<id> anchor was read as a citation",
        "wrap citations in {CITATION_START}cite…{CITATION_STOP}",
    ),
    Code(
        "CR206",
        "highlight-span",
        Severity.INFO,
        "a highlight span ({HIGHLIGHT_START}…{HIGHLIGHT_STOP}) was kept as its words",
        "no fix needed; the words are shown as the cited span",
    ),
    Code(
        "CR207",
        "gpt-oss-citation",
        Severity.INFO,
        "a gpt-oss browser citation (【6†L9-L11】) was read",
        "map browser cursors to registry ids",
    ),
    Code(
        "CR208",
        "assistants-citation",
        Severity.INFO,
        "an Assistants-era citation (【4:0†source】) was read",
        "map file-search annotations to registry ids (see the adapters)",
    ),
    Code(
        "CR209",
        "reference-echo",
        Severity.INFO,
        "a reference-id echo (【turn2file1】) was read as a citation",
        "ask for the canonical marker form",
    ),
    Code("CR210", "entity", Severity.INFO, "an entity marker was replaced by its display name", "no fix needed"),
    Code(
        "CR211",
        "navlist",
        Severity.INFO,
        "a navigation list marker was rendered as a titled list of its sources",
        "no fix needed",
    ),
    Code(
        "CR212",
        "copy-residue",
        Severity.WARNING,
        "ChatGPT copy residue (:contentReference[oaicite:N]{index=N}) was removed",
        "copy the answer with its sources, or export it, instead of copying the page text",
    ),
    Code(
        "CR213",
        "codex-file-citation",
        Severity.INFO,
        "a Codex file citation (【F:path†L10-L20】) was read as a citation of a repository file",
        "no fix needed; give --repo (checkout) or --repo-url (web address) to quote and link the lines",
    ),
    # placement, from the guide's prompt rules
    Code(
        "CR301",
        "in-emphasis",
        Severity.WARNING,
        "a citation sits inside bold or italics",
        "move the citation after the emphasised text",
    ),
    Code(
        "CR302",
        "in-code",
        Severity.WARNING,
        "invisible marker characters inside a code span or code block were removed; the visible code is kept",
        "place citations outside code",
    ),
    Code(
        "CR303",
        "before-punctuation",
        Severity.WARNING,
        "a citation comes before punctuation",
        "put the citation after the punctuation mark",
    ),
    Code(
        "CR304",
        "on-fence-line",
        Severity.WARNING,
        "a citation is on the same line as a code fence",
        "put the citation on a line of its own text after the fence",
    ),
    Code(
        "CR305",
        "grouped-at-end",
        Severity.WARNING,
        "all citations are grouped at the end of the answer",
        "cite each claim where it is made",
    ),
    Code(
        "CR306",
        "citation-only-block",
        Severity.WARNING,
        "a line or paragraph holds nothing but citations",
        "attach citations to the sentence they support",
    ),
    Code(
        "CR307",
        "verbatim-id",
        Severity.WARNING,
        "a source id is written verbatim outside a marker",
        "wrap the id in a marker or remove it",
    ),
    Code(
        "CR308",
        "uncited-source",
        Severity.INFO,
        "a source in the registry is never cited",
        "no fix needed unless the source should support a claim",
    ),
    Code(
        "CR309",
        "in-link",
        Severity.WARNING,
        "a citation sits inside link text and is shown without its own link",
        "move the citation after the link",
    ),
    Code(
        "CR310",
        "shared-url",
        Severity.INFO,
        "two cited sources share a URL and were merged into one reference",
        "no fix needed",
    ),
    Code(
        "CR311",
        "in-raw-html",
        Severity.WARNING,
        "a marker inside raw HTML or a link destination was removed",
        "place citations in text",
    ),
    # imports: a chat export's content references (citerender build conversations.json)
    Code(
        "CR501",
        "unknown-content-reference",
        Severity.WARNING,
        "a content reference of a type citerender does not know was shown as its text (alt or prompt_text)",
        "check how the page reads there; report the type so it can be supported",
    ),
    Code(
        "CR502",
        "unplaced-content-reference",
        Severity.WARNING,
        "a content reference's text was found neither at its offsets nor anywhere in the message",
        "no fix needed in the answer: the reference is left out",
    ),
    Code(
        "CR503",
        "span-repaired",
        Severity.WARNING,
        "a provider's citation span did not match its text as given: placed by its cited text, another unit or inclusive end",
        "check the citation's place; the provider's offsets may be in another unit (UTF-8 bytes, UTF-16)",
    ),
    Code(
        "CR504",
        "span-out-of-range",
        Severity.WARNING,
        "a provider's citation span lies outside the text: clamped to it",
        "check the citation's place",
    ),
    Code(
        "CR505",
        "citation-without-source",
        Severity.WARNING,
        "a provider's citation names no source it can be linked to (no URL, no known id): left out",
        "supply the sources with --sources when the response does not carry them",
    ),
    Code(
        "CR507",
        "unknown-citation-type",
        Severity.WARNING,
        "a provider's citation or annotation is of a type citerender does not read: its text is kept, and its URL as a source",
        "check how the answer reads there; report the type so it can be supported",
    ),
    Code(
        "CR508",
        "detached-messages",
        Severity.WARNING,
        "part of a conversation hangs from a message the export no longer holds: shown after the rest, under a note",
        "no fix needed: the export lost where those messages belong",
    ),
    Code(
        "CR509",
        "unresolved-export-reference",
        Severity.WARNING,
        "a citation in an exported answer names an id that neither the export's references nor its metadata resolve: shown as its text",
        "no fix needed in the answer; the export does not record what the id stood for",
    ),
    Code(
        "CR510",
        "citation-without-place",
        Severity.WARNING,
        "a provider cites a source without saying which words it supports (no span, or an empty one at the text's start): listed in Sources, not placed",
        "no fix needed in the answer; the provider gave no place for the citation",
    ),
    Code(
        "CR511",
        "url-not-retrieved",
        Severity.WARNING,
        "a page the model was asked to read could not be retrieved, or its web search failed (Gemini's URL context, Anthropic's web fetch and web search, OpenAI's web search calls): it supports nothing in the answer",
        "check the URL or the search's error; the answer was written without that page or those results",
    ),
    Code(
        "CR506",
        "broken-conversation",
        Severity.ERROR,
        "a conversation's message graph has a cycle, a node that is not an object or an id that is not a string: the conversation was skipped",
        "the rest of the export is built; repair or remove that conversation in the export",
    ),
    # evidence: does the cited passage support the claim? (on in check; precision over recall)
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

CODES: dict[str, Code] = {c.code: c for c in CODE_TABLE}
