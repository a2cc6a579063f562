"""Where a citation may go in an answer's Markdown: the one placement rule every adapter's
markers obey, whatever offsets the provider gave.

A marker inside inline code, a link (text, destination, autolink, bare URL) or a block (fenced
code, a link reference definition) would be lost or break it (one punycoded into a bare URL's
host links somewhere else). :class:`Zones` finds those places in
one linear pass and :meth:`Zones.settle` moves a citation out of them: after an inline zone and its
closing punctuation, before a block (after it when nothing precedes it), never inside a word. The
Markdown read is CommonMark's, approximated where exactness would cost more than linear time."""

from __future__ import annotations

import re
from bisect import bisect_right

from .offsets import Spans, past_closing

__all__ = ["Zones"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)
_REF_DEF = re.compile(r"^ {0,3}\[(?:[^\]\\\n]|\\.){1,999}\]:[ \t]*\S.*$", re.M)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_TICKS = re.compile(r"`+")
_BRACKET = re.compile(r"[\[\]]")
_AUTOLINK = re.compile(r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[\w.!#$%&'*+/=?^`{|}~-]+@[\w.-]+)>")
#: a bare URL or domain, as linkify reads one (a host with a letter TLD, then any path)
_BARE = re.compile(
    r"(?:(?<![A-Za-z0-9@-])(?:(?:https?|ftp)://|mailto:|www\.)"
    r"|(?<![\w@.-])(?=[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63}\b))"
    r"[^\s<]*"
)
#: what follows a link's ``]`` when it is an inline link: ``(dest "title")`` (CommonMark's forms,
#: each part bounded so that no start costs more than a few thousand characters)
_DEST = re.compile(
    r"\([ \t\n]*(?:<[^<>\n]{0,2048}>|[^\s()<]{0,2048}(?:\([^\s()]{0,2048}\)[^\s()]{0,2048}){0,32})"
    r"(?:[ \t\n]+(?:\"[^\"]{0,2048}\"|'[^']{0,2048}'|\([^()]{0,2048}\)))?[ \t\n]*\)"
)
_URL_TAIL = ".,:;!?*_~'\""
_MAX_DEST = 2048  # longer destinations and titles are not looked for (keeps the scan linear)


class Zones:
    """The places of ``text`` a citation must not go, as disjoint ``[start, end)`` ranges.

    :param complete: False for a text still streaming in: a zone opened in its last paragraph and
        not yet closed runs to the text's end (the citation waits).
    :param start: where to start looking (a stream's :meth:`restart`)."""

    def __init__(self, text: str, *, complete: bool = True, start: int = 0) -> None:
        self.text, self.complete, self.start = text, complete, start
        self._found: list[tuple[int, int, bool]] = []  # (start, end, is a block), overlapping
        pos = start
        blocks = self._blocks(start)
        for begin, end in blocks:
            self._inline(pos, begin)
            self._found.append((begin, end, True))
            pos = end
        self._inline(pos, len(text))
        self._found.sort()
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.blocks: list[bool] = []
        for start, end, block in self._found:  # nested and overlapping zones merged: one list of disjoint ones
            if self.ends and start < self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            elif end > start:
                self.starts.append(start)
                self.ends.append(end)
                self.blocks.append(block)
        del self._found

    def _blocks(self, start: int) -> list[tuple[int, int]]:
        """Fenced code blocks (an unclosed one runs to the end) and link reference definitions."""
        text = self.text
        found: list[tuple[int, int]] = []
        opened: tuple[int, str, int] | None = None  # (start, fence char, length)
        for m in _FENCE.finditer(text, start):
            run = m.group(1)
            if opened is None:
                if run[0] == "`" and "`" in m.group(2):
                    continue  # a backtick fence's info string holds no backtick: inline code
                opened = (m.start(), run[0], len(run))
            elif run[0] == opened[1] and len(run) >= opened[2] and not m.group(2).strip():
                found.append((opened[0], _line_end(text, m.end())))
                opened = None
        if opened is not None:
            found.append((opened[0], len(text)))
        fences = Spans(found)  # a definition inside a fence is code
        found.extend(
            (m.start(), _line_end(text, m.end())) for m in _REF_DEF.finditer(text, start) if not fences.holds(m.start())
        )
        return sorted(found)  # disjoint: whole lines, a definition never inside a fence

    def _inline(self, start: int, end: int) -> None:
        """Inline zones of ``text[start:end]``, paragraph by paragraph (none crosses a blank line)."""
        pos = start
        for m in _PARAGRAPH_BREAK.finditer(self.text, start, end):
            self._paragraph(pos, m.start(), last=False)
            pos = m.end()
        self._paragraph(pos, end, last=end == len(self.text))

    def _paragraph(self, start: int, end: int, *, last: bool) -> None:
        text = self.text
        open_end = last and not self.complete
        code = self._code_spans(start, end, open_end)
        for s, e in code:
            self._found.append((s, e, False))
        in_code = Spans(code)
        for m in _AUTOLINK.finditer(text, start, end):
            if not in_code.holds(m.start()):
                self._found.append((m.start(), m.end(), False))
        if open_end and (lt := text.rfind("<", start, end)) != -1 and ">" not in text[lt:end]:
            self._found.append((lt, end, False))  # an autolink still coming
        for m in _BARE.finditer(text, start, end):
            url = _trim_url(m.group())
            if url and not in_code.holds(m.start()):
                self._found.append((m.start(), m.start() + len(url) + (1 if open_end and m.end() == end else 0), False))
        self._links(start, end, in_code, open_end)

    def _code_spans(self, start: int, end: int, open_end: bool) -> list[tuple[int, int]]:
        """Code spans: a run of N backticks closed by the next run of exactly N (escaped openers skipped)."""
        text = self.text
        runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, start, end)]
        by_length: dict[int, list[int]] = {}
        for k, (s, e) in enumerate(runs):
            by_length.setdefault(e - s, []).append(k)
        spans: list[tuple[int, int]] = []
        k = 0
        while k < len(runs):
            s, e = runs[k]
            if _escaped(text, s):
                s += 1
            same = by_length.get(e - s, [])
            at = bisect_right(same, k)
            if e > s and at < len(same) and runs[same[at]][1] - runs[same[at]][0] == e - s:
                close = same[at]
                spans.append((s, runs[close][1]))
                k = close + 1
                continue
            if open_end and e > s:
                spans.append((s, end + 1))  # not closed yet: the rest may be code
                break
            k += 1
        return spans

    def _links(self, start: int, end: int, in_code: Spans, open_end: bool) -> None:
        """Inline links and images ``[text](dest "title")``, and full references ``[text][label]``."""
        text = self.text
        stack: list[int] = []
        for m in _BRACKET.finditer(text, start, end):
            i = m.start()
            if _escaped(text, i) or in_code.holds(i):
                continue
            if m.group() == "[":
                stack.append(i)
                continue
            if not stack:
                continue
            opener = stack.pop()
            close = _link_end(text, i + 1, end)
            if close is not None:
                begin = opener - 1 if opener > start and text[opener - 1] == "!" else opener
                self._found.append((begin, close, False))
        if open_end and stack:
            self._found.append((stack[0], end + 1, False))  # a link still coming

    def restart(self, limit: int) -> int:
        """Where the zones of this text grown longer can be looked for from, at or before ``limit``
        (the start of a zone ``limit`` falls in, else of the last word before it): nothing before it
        can change as the text grows."""
        text = self.text
        k = bisect_right(self.starts, limit - 1) - 1  # the last zone starting before the limit
        if k >= 0 and self.ends[k] > limit:
            return self.starts[k]
        floor = self.ends[k] if k >= 0 else self.start
        space = max(text.rfind(" ", floor, limit), text.rfind("\n", floor, limit), text.rfind("\t", floor, limit))
        return space + 1 if space >= floor else floor

    def zone_at(self, at: int) -> tuple[int, int, bool] | None:
        """The zone ``at`` lies strictly inside (``start < at < end``), else None."""
        k = bisect_right(self.starts, at - 1) - 1
        if k >= 0 and at < self.ends[k]:
            return self.starts[k], self.ends[k], self.blocks[k]
        return None

    def settle(self, at: int, *, forward: bool = False) -> tuple[int, str]:
        """Where a citation meant for ``at`` goes, and what must precede it there (a line break
        when it follows a block that ends the text). ``forward``: never before ``at`` (the text
        before it is shown already), so after a block too."""
        text = self.text
        at = max(0, min(at, len(text)))
        for _ in range(64):
            zone = self.zone_at(at)
            if zone is None:
                if not _inside_word(text, at):
                    return at, ""
                at = past_closing(text, _word_end(text, at))  # mid-word: after the word and its stop
                continue
            s, e, block = zone
            if block:
                return self._beside_block(s, e, forward)
            at = past_closing(text, min(e, len(text)))
        return len(text), ""

    def _beside_block(self, s: int, e: int, forward: bool) -> tuple[int, str]:
        """Where a citation meant inside the block ``s``..``e`` goes: right after the text the
        block follows (unless ``forward``, or no such text ends outside a zone), else after the
        block, on a line of its own when the block ends the text."""
        text = self.text
        if not forward:
            before = s
            while before > 0 and text[before - 1].isspace():
                before -= 1
            if before > 0 and self.zone_at(before) is None:
                return before, ""
        at = min(e, len(text))
        if at == len(text):
            return at, "" if text.endswith("\n") else "\n\n"
        return at + 1 if text[at] == "\n" else at, ""


#: scripts that do not space their words (Thai, Lao, Tibetan, Myanmar, Khmer; CJK from U+2E80):
#: a run of them is a clause, and a citation between two of their characters is in its place
_UNSPACED = ((0x0E00, 0x109F), (0x1780, 0x17FF), (0x2E80, 0x10FFFF))


def _word_char(ch: str) -> bool:
    """A letter or digit of a script that spaces its words."""
    return ch.isalnum() and not any(lo <= ord(ch) <= hi for lo, hi in _UNSPACED)


#: what joins two words into one (``café's``, ``well-known``, ``3.5``, ``3,000``, ``10:30``)
_JOINERS = "'\u2019-.,:"


def _inside_word(text: str, at: int) -> bool:
    """Does ``at`` split a word (or two joined by an apostrophe, hyphen or number's point)?"""
    if not 0 < at < len(text) or not _word_char(text[at]):
        return False
    return _word_char(text[at - 1]) or (text[at - 1] in _JOINERS and at >= 2 and _word_char(text[at - 2]))


def _word_end(text: str, at: int) -> int:
    """The end of the word ``at`` is in, words joined by an apostrophe, hyphen or number's point
    counting as one (``café's``, ``3.5``)."""
    while at < len(text) and (
        _word_char(text[at]) or (text[at] in _JOINERS and at + 1 < len(text) and _word_char(text[at + 1]))
    ):
        at += 1
    return at


def _line_end(text: str, at: int) -> int:
    """The end of the line ``at`` is on, its line break included."""
    nl = text.find("\n", at)
    return len(text) if nl == -1 else nl + 1


def _escaped(text: str, at: int) -> bool:
    """Is ``text[at]`` escaped by a backslash (an odd run of them before it)?"""
    n = 0
    while at - n - 1 >= 0 and text[at - n - 1] == "\\" and n < 64:
        n += 1
    return n % 2 == 1


def _trim_url(url: str) -> str:
    """A bare URL without the punctuation that ends its sentence (and an unbalanced ``)``)."""
    while url and (url[-1] in _URL_TAIL or (url[-1] == ")" and url.count("(") < url.count(")"))):
        url = url[:-1]
    return url


def _link_end(text: str, at: int, end: int) -> int | None:
    """Where a link whose text's ``]`` is just before ``at`` ends: after ``(dest "title")`` or
    ``[label]``; None when neither follows."""
    if at >= end:
        return None
    if text[at] == "[":
        close = text.find("]", at + 1, min(end, at + 1 + _MAX_DEST))
        return close + 1 if close != -1 else None
    m = _DEST.match(text, at, end) if text[at] == "(" else None
    return m.end() if m else None
