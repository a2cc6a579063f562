"""Code is the author's text: only the invisible reserved characters and ChatGPT's copy residue
leave it.

The parse runs on escape-normalised text (``\\ue200`` read as U+E200), so each code token is read
back from the original text; then the reserved characters U+E200–U+E206 are removed, and
``:contentReference[oaicite:N]{index=N}`` (a copied ChatGPT page's artifact) unless
``keep_code_residue`` keeps it, each reported. Everything else stays exactly as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from markdown_it.token import Token

from ..lazy_re import lazy_compile
from ..syntax.escapes import normalize_escapes
from ..syntax.format import CitationFormat
from ..syntax.marks import joins_runs
from ..syntax.patterns import COPY_RESIDUE_RE
from .locate import Locator
from .state import CitationState

__all__ = ["report_removed", "report_residue", "scrub_code", "scrub_code_span", "scrub_math"]

_FENCE_LINE = lazy_compile(r" {0,3}(?:`{3,}|~{3,})")


@lru_cache(maxsize=32)
def _invisible(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{re.escape(chars)}]+")


def _chars(count: int) -> str:
    return f"{count} invisible marker character{'s' if count > 1 else ''}"


def _untouched(text: str, st: CitationState, fmt: CitationFormat, residue: bool) -> bool:
    """Is there nothing to read back (no export, no escapes) and nothing to remove from ``text``?"""
    return (
        st.spans is None
        and not st.offsets
        and not fmt.marker_set.found_in(text)
        and not (residue and "contentReference[" in text)
    )


def scrub_math(tok: Token, st: CitationState, fmt: CitationFormat, where: Callable[[], int]) -> None:
    """A formula minus the invisible characters (not read back); ``where()``: the offset to report."""
    pattern = _invisible(fmt.marker_chars)
    count = sum(len(m.group(0)) for m in pattern.finditer(tok.content))
    if count:
        tok.content = pattern.sub("", tok.content)
        st.report("CR302", f"{_chars(count)} removed from a formula", where())


def scrub_code(tok: Token, st: CitationState, loc: Locator, fmt: CitationFormat, residue: bool = True) -> None:
    """A fence or indented code block (and a fence's info string) as written, minus the
    invisible characters and (``residue``) ChatGPT's copy residue."""
    if _untouched(tok.content + tok.info, st, fmt, residue):
        return
    removed: list[tuple[int, int]] = []
    copied: list[tuple[int, int]] | None = [] if residue else None
    first = (tok.map[0] if tok.map else 0) + (1 if tok.type == "fence" else 0)
    lines = tok.content.split("\n")
    tok.content = "\n".join(
        _line_suffix(line, first + j, st, loc, fmt, removed, copied) for j, line in enumerate(lines)
    )
    report_removed(st, removed, "CR302")
    report_residue(st, copied)
    if tok.info:
        removed = []
        first = tok.map[0] if tok.map else 0
        tok.info = _line_suffix(tok.info, first, st, loc, fmt, removed)
        report_removed(st, removed, "CR304")


def scrub_code_span(
    tok: Token,
    st: CitationState,
    loc: Locator,
    block: Token,
    content: str,
    cursor: list[int],
    fmt: CitationFormat,
    residue: bool = True,
) -> None:
    """A code span as written, minus the invisible characters; ``content`` is its inline
    block's (normalised) source, searched from ``cursor``, a line at a time."""
    text = tok.content
    if _untouched(text, st, fmt, residue):
        return
    invisible = _invisible(fmt.marker_chars)
    found = _find_span(text, content, cursor[0]) if text else None
    removed: list[tuple[int, int]] = []
    copied: list[tuple[int, int]] | None = [] if residue else None
    pieces: list[tuple[str, int, int]] = []  # (original text, start, end) of each line of the span
    if found is not None:
        cursor[0] = found.end()
        pos = found.start()
        for segment in found.group(0).split("\n"):
            start, end = loc.span(block, content, pos, segment)
            pieces.append((st.original[start:end], start, end))
            pos += len(segment) + 1
    if found is not None and normalize_escapes(" ".join(p for p, _, _ in pieces))[0] == text:
        out = []
        for original, start, end in pieces:
            out.append(_remove(original, start, fmt, removed, copied))
            if st.spans is not None:
                st.code.append((start, end))
        tok.content = " ".join(out)
    else:  # not where expected: keep the parsed text, minus the characters (rare)
        pos = found.start() if found is not None else max(content.find(text), 0)
        removed.extend(loc.span(block, content, pos + m.start(), m.group(0)) for m in invisible.finditer(text))
        tok.content = invisible.sub("", text)
    report_removed(st, removed, "CR302")
    report_residue(st, copied)


# ---------------------------------------------------------------------- helpers


def _find_span(text: str, content: str, start: int) -> re.Match[str] | None:
    """Where a code span's text stands in its block's source (any space may be a line break)."""
    pattern = re.escape(text)
    if " " in text:
        pattern = pattern.replace("\\ ", "[ \n]")
    return re.compile(pattern).search(content, start)


def _remove(
    text: str,
    start: int,
    fmt: CitationFormat,
    removed: list[tuple[int, int]],
    copied: list[tuple[int, int]] | None = None,
) -> str:
    """``text`` (at ``start`` in the original) without invisible characters (spans to ``removed``)
    and copy residue (to ``copied``, if a list) unless removing it would join two backtick runs."""
    pattern = _invisible(fmt.marker_chars)
    cuts: list[tuple[int, int]] = []
    if copied is not None and "contentReference[" in text:
        cuts = [
            (m.start(), m.end())
            for m in COPY_RESIDUE_RE.finditer(text)
            if not joins_runs(text, m.start(), m.end(), "`~")
        ]
        copied.extend((start + a, start + b) for a, b in cuts)
    out, pos = [], 0
    for a, b in [*cuts, (len(text), len(text))]:
        piece = text[pos:a]
        removed.extend((start + pos + m.start(), start + pos + m.end()) for m in pattern.finditer(piece))
        out.append(pattern.sub("", piece))
        pos = b
    return "".join(out)


def _line_suffix(
    line: str,
    index: int,
    st: CitationState,
    loc: Locator,
    fmt: CitationFormat,
    removed: list[tuple[int, int]],
    copied: list[tuple[int, int]] | None = None,
) -> str:
    """A code line as the original has it (markdown-it's is a suffix of it, maybe tab-padded)."""
    starts = loc.starts
    if not line or index >= len(starts):
        return line
    norm_start = starts[index]
    norm_end = starts[index + 1] - 1 if index + 1 < len(starts) else len(loc.src)
    source = loc.src[norm_start:norm_end]
    pad = len(line) - len(line.lstrip(" "))
    for p in range(pad + 1):
        rest = line[p:]
        if rest and source.endswith(rest):
            omap = st.offsets
            a, b = omap(norm_end - len(rest)), omap(norm_end)
            if st.spans is not None:
                st.code.append((a, b))
            return line[:p] + _remove(st.original[a:b], a, fmt, removed, copied)
        if line[p : p + 1] != " ":
            break
    return _invisible(fmt.marker_chars).sub("", line)  # not found: keep what was parsed, minus the characters


def report_residue(st: CitationState, copied: list[tuple[int, int]] | None) -> None:
    """One CR212 for each copy residue removed from code (its spans go to the export's edits)."""
    for a, b in copied or ():
        if st.spans is not None:
            st.spans.append((a, b, ""))
        st.report("CR212", "ChatGPT copy residue removed from code", a)


def report_removed(st: CitationState, removed: list[tuple[int, int]], code: str) -> None:
    """One CR302 (code) or CR304 (a code-fence line) for the characters removed from one code element."""
    if not removed:
        return
    if st.spans is not None:
        st.spans.extend((a, b, "") for a, b in removed)
    what = _chars(sum(b - a for a, b in removed))
    first = removed[0][0]
    line, _ = st.line_col(first)
    if code == "CR304" or _FENCE_LINE.match(st.line_text(line)):
        st.report("CR304", f"{what} removed from a code-fence line", first)
    else:
        st.report("CR302", f"{what} removed from code; the visible code is kept as written", first)
