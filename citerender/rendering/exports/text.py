"""Plain text with ``[1]`` numbers and a References list: what a person pastes into an e-mail."""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

from ...plugin.bibliography import CONSULTED_HEADING
from ...plugin.labels import group_label
from ...plugin.state import Reference
from ...sources.urls import safe_url
from ...syntax.residue import remove_residue
from ..full_preset import roman
from .parsed import Parsed, finish, lines_label

__all__ = ["to_text"]


#: the math tokens of the full preset (dollarmath's and ChatGPT's ``\\(…\\)`` / ``\\[…\\]`` rules)
_MATH_INLINE = frozenset({"math_inline", "math_inline_double"})
_MATH_BLOCKS = frozenset({"math_block", "math_block_label", "math_block_eqno"})
#: the closing delimiter of each opening one a math token records as its ``markup``
_CLOSE = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}


def _tex_source(t: Token) -> str:
    """A formula as the author wrote it, its delimiters around its TeX (``\\(x\\)``), as the
    Markdown export keeps it: plain text has no formula to show, and the TeX holds the claim's words."""
    opener = t.markup or ("$$" if t.block or t.type == "math_inline_double" else "$")
    return opener + remove_residue(t.content) + _CLOSE.get(opener, opener)


class _TextWriter:
    """Markdown tokens to plain text."""

    def __init__(self, marks: str = "") -> None:
        self.marks = marks  # characters that take no room (see :func:`to_text`)
        self.blocks: list[str] = []
        self.prefixes: list[str] = []
        self.list_stack: list[list[int | None]] = []  # [next number or None for bullets]
        self.tight_next = False

    def inline(self, tokens: Sequence[Token]) -> str:
        out: list[str] = []
        link_href: list[str | None] = []
        for t in tokens:
            if t.type == "text":
                out.append(remove_residue(t.content))
            elif t.type == "code_inline":
                out.append(t.content)
            elif t.type in ("softbreak", "hardbreak"):
                out.append("\n")
            elif t.type in _MATH_INLINE:
                out.append(_tex_source(t))
            elif t.type == "citation":
                out.append(group_label(sorted({u.ref for u in t.meta["uses"]})))
            elif t.type == "footnote_ref":
                out.append(f"[note {roman(t.meta['id'] + 1)}]")
            elif t.type == "image":
                out.append(self.inline(t.children or []))
            elif t.type == "link_open":
                href = t.attrs.get("href")
                link_href.append(str(href) if href is not None else None)
            elif t.type == "link_close":
                href = link_href.pop() if link_href else None
                safe = safe_url(href)
                if safe and safe.startswith(("http://", "https://")):
                    out.append(f" <{safe}>")
        return "".join(out)

    def width(self, text: str) -> int:
        """How many characters ``text`` shows (the marks take no room)."""
        return len(text) - sum(text.count(c) for c in self.marks)

    def add(self, text: str, *, tight: bool = False) -> None:
        prefix = "".join(self.prefixes)
        # a list marker opens only the block's first line; its other lines are indented under it
        rest = "".join(x if x.startswith(">") else " " * len(x) for x in self.prefixes)
        lines = text.split("\n")
        block = "\n".join(
            (prefix if k == 0 else rest) + line if line else (prefix if k == 0 else rest).rstrip()
            for k, line in enumerate(lines)
        )
        if tight and self.blocks:  # items of a tight list stay on consecutive lines
            self.blocks[-1] += "\n" + block
        else:
            self.blocks.append(block)
        if self.prefixes and self.list_stack:  # after a list item's first block, indent the rest
            self.prefixes[-1] = " " * len(self.prefixes[-1])

    def run(self, tokens: Sequence[Token]) -> str:
        """The blocks of ``tokens`` as text, in one pass: a heading or paragraph takes its three
        tokens (open, inline, close), a table its rows, any other token is a leaf block or opens or
        closes a container (a quote, a list, a note)."""
        i = 0
        while i < len(tokens):
            t = tokens[i]
            if t.type == "heading_open":
                self.heading(t, tokens[i + 1].children or [])
                i += 3
                continue
            if t.type == "paragraph_open":
                self.add(self.inline(tokens[i + 1].children or []), tight=t.hidden and self.tight_next)
                self.tight_next = True
                i += 3
                continue
            if t.type == "table_open":
                i = self.table(tokens, i)
            elif (leaf := _leaf_text(t)) is not None:
                self.add(leaf)
            else:
                self.container(t)
            i += 1
        return "\n\n".join(b for b in self.blocks if b.strip()) + "\n"

    def heading(self, t: Token, children: Sequence[Token]) -> None:
        """A heading's words, underlined with ``=`` (h1) or ``-`` (h2) as long as they show."""
        text = self.inline(children)
        rule = "=" if t.tag == "h1" else "-" if t.tag == "h2" else ""
        self.add(text + (("\n" + rule * self.width(text)) if rule else ""))

    def table(self, tokens: Sequence[Token], i: int) -> int:
        """The table opening at ``tokens[i]``, a line per row (its cells joined by `` | ``);
        returns the index of its ``table_close``."""
        rows: list[list[str]] = []
        while tokens[i].type != "table_close":
            if tokens[i].type == "tr_open":
                rows.append([])
            elif tokens[i].type == "inline":
                rows[-1].append(self.inline(tokens[i].children or []))
            i += 1
        self.add("\n".join(" | ".join(cells) for cells in rows))
        return i

    def container(self, t: Token) -> None:
        """A quote, a list, a list item or a note opening or closing: the prefix its lines take
        (``> ``, ``- ``, ``3. ``, ``(ii) ``) and a list's counter; any other token shows nothing."""
        if t.type == "blockquote_open":
            self.prefixes.append("> ")
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            start = int(t.attrs.get("start", 1) or 1) if t.type == "ordered_list_open" else None
            self.list_stack.append([start])
            self.tight_next = False  # the list's first item starts a new block
        elif t.type in ("bullet_list_close", "ordered_list_close"):
            self.list_stack.pop()
        elif t.type == "list_item_open":
            self.prefixes.append(self.item_marker())
        elif t.type == "footnote_open":
            self.prefixes.append(f"({roman(t.meta['id'] + 1)}) ")
            self.list_stack.append([None])
        elif t.type == "footnote_close":
            self.prefixes.pop()
            self.list_stack.pop()
        elif t.type in ("blockquote_close", "list_item_close"):
            self.prefixes.pop()

    def item_marker(self) -> str:
        """The marker of the innermost list's next item: ``- ``, or its number (counted on)."""
        counter = self.list_stack[-1]
        if counter[0] is None:
            return "- "
        marker = f"{counter[0]}. "
        counter[0] += 1
        return marker


def _leaf_text(t: Token) -> str | None:
    """The text of a block that holds no other: a formula's TeX, code indented by four spaces, a
    rule, the notes' heading, raw HTML as written; None for any other token."""
    if t.type in _MATH_BLOCKS:
        return _tex_source(t)
    if t.type in ("fence", "code_block"):
        return "\n".join("    " + line for line in t.content.rstrip("\n").split("\n"))
    if t.type == "hr":
        return "-" * 20
    if t.type == "footnote_block_open":
        return "Notes"
    if t.type == "html_block":
        return t.content.rstrip("\n")
    return None


def to_text(p: Parsed, *, marks: str = "") -> str:
    """Plain text with ``[1]`` numbers and a References list. ``marks``: characters another
    export put in the tokens to find its positions in this text (they take no room: a heading's
    rule stays as long as its words; see :mod:`.annotations`)."""
    body = _TextWriter(marks).run(p.tokens)
    consulted = [f"- {_reference_line(r, cited=False)}" for r in p.state.consulted]
    tail = "\n".join([CONSULTED_HEADING, *consulted]) + "\n" if consulted else ""
    if not p.references:
        return finish(p, body + ("\n" if tail else ""), tail)
    refs = ["References", *(f"[{r.number}] {_reference_line(r, cited=True)}" for r in p.references)]
    return finish(p, body + "\n", "\n".join(refs) + "\n" + (tail and "\n" + tail))


def _reference_line(ref: Reference, *, cited: bool) -> str:
    """A source as a line of a list: its label and URL (when it has a title), and for a cited
    one its date, the lines cited and whether it is unverified."""
    s = ref.source
    url = safe_url(s.url)
    bits = [s.label, url if url and s.title else None]
    if cited:
        lines = lines_label(ref)
        bits += [
            s.updated and f"Updated {s.updated}",
            lines and lines[0].upper() + lines[1:],
            None if ref.known else "Unverified source",
        ]
    return ". ".join(b.rstrip(".") for b in bits if b) + "."
