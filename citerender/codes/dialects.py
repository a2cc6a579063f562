"""Codes CR2xx: dialects recognised, read and rendered for what they mean."""

from __future__ import annotations

from .kinds import Code, Severity

ROWS = [
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
    Code(
        "CR220",
        "copied-citation",
        Severity.INFO,
        "a citation as ChatGPT's copy button writes it ([oai_citation:N‡Title](url), or the older "
        "[oai_citation:N,Title](url)) was read as a citation of that page, named by its title",
        "no fix needed; ChatGPT's utm_source=chatgpt.com is taken off the URL",
    ),
    Code(
        "CR221",
        "cite-tag",
        Severity.INFO,
        'an MDX-style tag was read: <Cite ref="turn0search0"/> (or refs={[…]}) as a citation of those ids, '
        '<Link url="…" title="…"/> as a link',
        "ask for the canonical marker form, and pass the sources the ids name",
    ),
    Code(
        "CR222",
        "copy-residue-object",
        Severity.INFO,
        'a ChatGPT copy residue object ({"fallbackMarkdown":…,"reference":{…}}) was read: the pages its pill '
        "named are cited where it stood (a url pill is shown as a link)",
        "copy the answer with its sources, or export it, instead of copying the page text",
    ),
    Code(
        "CR223",
        "copied-page-not-linked",
        Severity.WARNING,
        "a page or file a copied citation names has no web address a reader can open (an uploaded file's "
        "file-service:// or sediment:// address, none, a space in it, another scheme): cited by its name, not linked",
        "look the page up by its title, or share the file, if readers need it",
    ),
]
