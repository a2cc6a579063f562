"""The citation section of a system prompt, generated from the same settings as everything else.

For the default settings the text follows the guide's recommended wording (models are trained
on it), then adds the points the guide says instructions must state and its recommended text
leaves implicit: forbidden forms, placement rules, and what to do without a supporting source.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from ..errors import CiterenderError
from ..syntax.format import DEFAULT_FORMAT, CitationFormat

__all__ = ["EXTRA_CONSIDERATIONS", "citation_instructions"]

Pattern = Literal["tool", "injected"]
MarkerStyle = Literal["real", "placeholders", "escapes"]

EXTRA_CONSIDERATIONS = """<extra_considerations_for_citations>
- **Relevance:** Include only search results and citations that support the cited response text. Irrelevant sources permanently degrade user trust.
- **Diversity:** You must base your answer on sources from diverse domains, and cite accordingly.
- **Trustworthiness:** To produce a credible response, you must rely on high quality domains, and ignore information from less reputable domains unless they are the only source.
- **Accurate Representation:** Each citation must accurately reflect the source content. Selective interpretation of the source content is not allowed.

Remember, the quality of a domain/source depends on the context.
- When multiple viewpoints exist, cite sources covering the spectrum of opinions to ensure balance and comprehensiveness.
- When reliable sources disagree, cite at least one high-quality source for each major viewpoint.
- Ensure more than half of citations come from widely recognized authoritative outlets on the topic.
- For debated topics, cite at least one reliable source representing each major viewpoint.
- Do not ignore the content of a relevant source because it is low quality.
</extra_considerations_for_citations>"""


def _chars(fmt: CitationFormat, markers: MarkerStyle) -> tuple[str, str, str]:
    if markers == "real":
        return fmt.start, fmt.delimiter, fmt.stop
    if markers == "placeholders":
        return "{CITATION_START}", "{CITATION_DELIMITER}", "{CITATION_STOP}"
    if markers == "escapes":
        return tuple(f"\\u{ord(c):04x}" for c in (fmt.start, fmt.delimiter, fmt.stop))  # type: ignore[return-value]
    raise CiterenderError(f"markers must be 'real', 'placeholders' or 'escapes', not {markers!r}")


def citation_instructions(
    pattern: Pattern = "tool",
    *,
    locators: bool = True,
    tool_name: str = "tool_1",
    id_kind: str = "file",
    markers: MarkerStyle = "real",
    fmt: CitationFormat = DEFAULT_FORMAT,
    extra: bool = False,
    example: bool = True,
) -> str:
    """The ``## Citations`` section of a system prompt.

    :param pattern: ``tool`` (sources returned by a tool, ids ``turn{T}{kind}{N}``) or
        ``injected`` (``<BLOCK id="…">`` context in the prompt).
    :param locators: whether line locators (``L8-L13``) may be cited.
    :param tool_name: the tool's name, for the tool pattern.
    :param id_kind: the id kind of tool results (``file`` gives ``turn0file0``).
    :param markers: real characters, ``{CITATION_START}``-style placeholders, or ``\\ue200`` escapes.
    :param extra: append the guide's extra considerations (relevance, diversity, …).
    :param example: end with an example of a correctly cited sentence.
    """
    if not id_kind.isalpha():
        raise CiterenderError(f"id_kind must be letters only, not {id_kind!r}")
    if pattern not in ("tool", "injected"):
        raise CiterenderError(f"pattern must be 'tool' or 'injected', not {pattern!r}")
    m = _Marks(*_chars(fmt, markers), fmt.families[0])
    if pattern == "tool":
        parts, sample, unsupported = _tool_section(m, locators, tool_name, id_kind)
    else:
        parts, sample, unsupported = _injected_section(m, locators)
    parts += _common_rules(unsupported)
    if example:
        lead = (
            "The on-call handoff process is documented in the weekly support sync notes."
            if pattern == "tool"
            else "The Court held that the District Court lacked personal jurisdiction over the petitioner."
        )
        parts += ["", "Example output:", "", f"{lead} {sample}"]
    if extra:
        parts += ["", EXTRA_CONSIDERATIONS]
    return "\n".join(parts) + "\n"


class _Marks(NamedTuple):
    """The marker characters as the prompt writes them, and the citation family."""

    s: str
    d: str
    e: str
    fam: str


def _tool_section(m: _Marks, locators: bool, tool_name: str, id_kind: str) -> tuple[list[str], str, str]:
    """The guide's wording for sources returned by a tool; the sample marker; the no-support lead."""
    s, d, e, fam = m
    rid = rf"turn\d+{id_kind}\d+"
    ex0, ex1 = f"turn0{id_kind}0", f"turn2{id_kind}1"
    parts = [
        "## Citations",
        "",
        f'Results are returned by "{tool_name}". Each message from `{tool_name}` is called a "source" and '
        f"identified by its reference ID, which is the first occurrence of `{rid}` (for example, `{ex0}` or "
        f"`{ex1}`). In this example, the string `{ex0}` would be the source reference ID.",
        "",
        f"Citations are references to `{tool_name}` sources. Citations may be used to refer to either a single "
        "source or multiple sources.",
        "",
        "A citation to a single source must be written as:",
        f"{s}{fam}{d}{rid}{e}",
    ]
    if locators:
        parts += [
            "",
            "If line-level citations are supported, a citation to a specific line range must be written as:",
            rf"{s}{fam}{d}{rid}{d}L\d+-L\d+{e}",
        ]
    parts += [
        *_placement(m, "source", f"reference IDs like `{ex0}`"),
        "- Cite only retrieved sources that directly support the cited text.",
        "- Never invent source IDs, line ranges, or block locators that were not returned by the tool."
        if locators
        else "- Never invent source IDs that were not returned by the tool.",
        "- If multiple retrieved sources materially support a proposition, cite all of them.",
        "- If the retrieved sources disagree, cite the conflicting sources and describe the disagreement accurately.",
    ]
    sample = f"{s}{fam}{d}{ex0}{d}L8-L13{e}" if locators else f"{s}{fam}{d}{ex0}{e}"
    return parts, sample, "If no retrieved source supports a statement"


def _injected_section(m: _Marks, locators: bool) -> tuple[list[str], str, str]:
    """The guide's wording for ``<BLOCK>`` context injected in the prompt."""
    s, d, e, fam = m
    parts = [
        "## Citations",
        "",
        "Supporting context is provided directly in the prompt as citable units. Each citable unit is identified "
        'by the value of its `id` attribute in the first occurrence of a tag such as `<BLOCK id="block5"> ... '
        "</BLOCK>`. In this example, `block5` would be the source reference ID.",
        "",
        "Because this pattern does not invoke tools, there is no tool turn counter to increment. That means you do "
        "not need to use a `turn#` prefix for the citation marker. You can keep IDs in a `turn0block5` style if "
        "that matches the rest of your system, or use plain IDs like `block5` as shown here. The key requirement "
        "is that the citation marker matches the injected context ID exactly and consistently.",
        "",
        "Citations are references to these provided citable units. Citations may be used to refer to either a "
        "single source or multiple sources.",
        "",
        "A citation to a single source must be written as:",
        f"{s}{fam}{d}<block_id>{e}",
        "",
        "For example:",
        f"{s}{fam}{d}block5{e}",
    ]
    if locators:
        parts += [
            "",
            "When a block numbers its lines ([L1], [L2], …), a citation to a specific line range must be written as:",
            rf"{s}{fam}{d}<block_id>{d}L\d+-L\d+{e}",
        ]
    parts += [
        *_placement(m, "block", "block IDs"),
        "- Cite only blocks that appear in the provided context.",
        "- Never invent new block IDs." + (" Never invent line ranges a block does not number." if locators else ""),
        "- Never cite outside knowledge or outside authorities.",
        "- If multiple blocks materially support a proposition, cite all of them.",
        "- If the provided blocks conflict, cite the conflicting blocks and describe the conflict accurately.",
    ]
    return parts, f"{s}{fam}{d}block5{e}", "If no provided block supports a statement"


def _placement(m: _Marks, unit: str, ids: str) -> list[str]:
    """How several sources are cited, that ids are never written bare, and where citations go."""
    return [
        "",
        f"Citations to multiple sources must be written by emitting multiple citation markers, one for each "
        f"supporting {unit}.",
        "",
        f"You must NOT write {ids} verbatim in the response text without putting them between {m.s}...{m.e}.",
        "",
        "- Place citations at the end of the supported sentence, or inline if the sentence is long and contains "
        "multiple supported clauses.",
        "- Citations must be placed after punctuation.",
    ]


def _common_rules(unsupported: str) -> list[str]:
    """The points the guide says instructions must state and its recommended text leaves implicit."""
    return [
        "- Citations must not be placed inside markdown bold, italics, or code fences, as they will not display "
        "correctly. Instead, place the citations outside the markdown block. Citations outside code fences may not "
        "be placed on the same line as the end of the code fence.",
        "- Citations must not be all grouped together at the end of the response.",
        "- Citations must not be put in a line or paragraph with nothing else but the citations themselves.",
        "- Do not cite in any other form: no bracketed numbers such as [1], no footnotes, no links to sources, "
        "no 【】 brackets, and no other families or delimiters than the format above.",
        f"- {unsupported}, do not attach a citation to it; say that the sources do not cover it rather than "
        "guessing. Statements that need no support (greetings, transitions, your own reasoning) take no citation.",
    ]
