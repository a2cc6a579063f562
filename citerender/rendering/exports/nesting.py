"""Nesting bounded before a Markdown reader sees an export: pandoc takes time exponential in
nested brackets, and a tree hundreds of block quotes deep is deeper than Python's JSON reader takes
back (the Word export reads pandoc's tree). Past a depth no real answer reaches, the opener is
escaped: the text reads the same, it just no longer nests.
"""

from __future__ import annotations

import re

__all__ = ["MAX_BRACKET_DEPTH", "MAX_CONTAINER_DEPTH", "bound_nesting"]

#: block quotes and list items, one inside the other, on one line's prefix
MAX_CONTAINER_DEPTH = 16
#: ``[`` inside ``[`` (``[[1]](url)``, as xAI writes its links, is the deepest real answers go)
MAX_BRACKET_DEPTH = 2

_CONTAINER = re.compile(r" {0,3}(?:>|(?:[-*+]|\d{1,9}[.)])(?=[ \t]))[ \t]?")
_CODE_SPAN = re.compile(r"(`+).*?(?<!`)\1(?!`)")


def bound_nesting(markdown: str) -> str:
    """``markdown`` with container openers past :data:`MAX_CONTAINER_DEPTH` and brackets past
    :data:`MAX_BRACKET_DEPTH` escaped (outside code spans); linear in the text."""
    return "\n".join(_line(line) for line in markdown.split("\n"))


def _line(line: str) -> str:
    pos, depth = 0, 0
    while (m := _CONTAINER.match(line, pos)) is not None:
        depth += 1
        if depth > MAX_CONTAINER_DEPTH:
            at = m.start() + len(m.group(0)) - len(m.group(0).lstrip(" "))
            line = line[:at] + "\\" + line[at:]
            break
        pos = m.end()
    if line.count("[") <= MAX_BRACKET_DEPTH:
        return line
    return _brackets(line)


def _brackets(line: str) -> str:
    out: list[str] = []
    depth = 0
    escaped: list[bool] = []  # for each open bracket: was it escaped?
    pos = 0
    spans = [(m.start(), m.end()) for m in _CODE_SPAN.finditer(line)] if "`" in line else []
    span = 0
    i, n = 0, len(line)
    while i < n:
        if span < len(spans) and i == spans[span][0]:
            i = spans[span][1]
            span += 1
            continue
        ch = line[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            deep = depth >= MAX_BRACKET_DEPTH
            escaped.append(deep)
            depth += 1
            if deep:
                out.append(line[pos:i] + "\\[")
                pos = i + 1
        elif ch == "]" and escaped:
            depth -= 1
            if escaped.pop():
                out.append(line[pos:i] + "\\]")
                pos = i + 1
        i += 1
    out.append(line[pos:])
    return "".join(out)
