"""Where a stream's text splits into decided blocks, as markdown-it's own block parser reads it.

The stream owns no block rules: it runs the pipeline's block rules (:meth:`.chain.Chain.block_state`)
over the complete lines not yet decided and takes every top-level block but the last. A later
line can only change the block still open at the end (a paragraph becoming a setext heading or a
table, a list going on or becoming loose, a fence or raw HTML running on, a definition's title on
its next line), never one the parser has closed and followed by another: those blocks are
decided. The last block is decided too once nothing can continue it: an ATX heading or a
thematic break at its line's end, a paragraph, a quote or a table at a blank line after it (a list,
indented code, a note definition or raw HTML may go on after one). Lines after the last decided
block (blank lines, link definitions, the open block) wait.
"""

from __future__ import annotations

from collections.abc import Sequence

from markdown_it.token import Token

__all__ = ["decided_end"]


_CLOSED_BY_A_BLANK = frozenset({"paragraph_open", "blockquote_open", "table_open"})


def decided_end(text: str, tokens: Sequence[Token]) -> tuple[int, int, int]:
    """How much of ``text`` (complete lines; ``tokens`` its block tokens) is decided: up to the
    end of the last top-level block, if it is closed, or of the one before it. Returns the
    offset and line there, and how many of ``tokens`` are the decided blocks' (zeros: none)."""
    tops = [k for k, t in enumerate(tokens) if t.level == 0 and t.nesting >= 0 and t.map is not None]
    if not tops:
        return 0, 0, 0
    last = tokens[tops[-1]]
    end = last.map[1] if last.map else 0
    if (
        last.type == "hr"
        or (last.type == "heading_open" and last.markup.startswith("#"))
        or (last.type in _CLOSED_BY_A_BLANK and end < text.count("\n"))
    ):
        lines, count = end, len(tokens)
    elif len(tops) >= 2:
        before = tokens[tops[-2]].map
        lines, count = (before[1] if before else 0), tops[-1]
    else:
        return 0, 0, 0
    pos = 0
    for _ in range(lines):
        pos = text.index("\n", pos) + 1
    return pos, lines, count
