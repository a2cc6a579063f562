"""The Markdown sink: committed text out as Markdown, each citation a placeholder (``[^1]``).

Code is decided as markdown-it decides it (:mod:`.code`): a fenced block's lines and a code
span's text keep everything visible as written, only the invisible marker characters go
(reported). A line that may open a fence waits for its end; text after a backtick run that may
open a code span waits for the run that closes it, or for the paragraph's end. Everything else
is written as it comes."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..diagnostics import Diagnostic
from ..syntax.escapes import has_escape
from ..syntax.format import RESERVED_RE, CitationFormat
from ..syntax.marks import SEPARATOR_CONTEXT, ZWSP, joins_runs, needs_separator
from ..syntax.patterns import patterns
from ..syntax.residue import RESIDUE, has_residue
from ..syntax.scanner import may_hold_copy_paste, scan
from ..syntax.types import MarkKind
from .code import CodeSpans, Fences, may_open_fence

__all__ = ["MarkdownSink"]

_CONTEXT = 16  # input characters before a mark that decide its word boundaries
_HEAD = 256  # of a line, enough to read a fence


class MarkdownSink:
    """:meth:`write` committed text, get Markdown; ``numbers(ids)`` numbers cited sources (the
    plugin's numbering, through the stream's document state)."""

    def __init__(
        self,
        fmt: CitationFormat,
        numbers: Callable[[Sequence[str]], list[int]],
        placeholder: str,
        diagnostics: list[Diagnostic],
        keep_code_residue: bool = False,
    ) -> None:
        self.fmt, self.numbers, self.placeholder, self.diagnostics = fmt, numbers, placeholder, diagnostics
        self.keep_code_residue = keep_code_residue
        self._fences = Fences()
        self._spans = CodeSpans()
        self._head = ""  # the current line's head (at most _HEAD characters)
        self._rest_blank = True  # whether the rest of the current line is blank
        self._line: list[str] = []  # a line that may open a fence, held whole until it ends
        self._context = ""  # the last input characters written: they decide word boundaries
        self._tail = ""  # the end of what was written (enough to see where a word continues)
        self._tail_parts: list[str] = []  # written after it, joined when read (most never are)
        self._tail_size = 0
        self._open_cut = False  # a removal at the very end of what was written
        self._plain_text = False  # what is being written holds no mark (the front said so)
        self._line_blank_in = True  # nothing but blanks on the input's current line yet
        self._deferred: list[str] = []  # prose chunks shown, their bookkeeping not done yet
        self._mid = False  # inside a line begun, no fence, code span or cut open
        self._triggers = patterns(fmt).trigger_chars

    def write(self, text: str, *, plain: bool = False) -> str:
        """``plain``: the front found no character a mark, an escape or residue is written with
        in ``text`` (what was held from before is read as usual)."""
        if self._deferred:
            self._catch_up()
        self._plain_text = plain
        out: list[str] = []
        pos = 0
        while pos < len(text):
            nl = text.find("\n", pos)
            piece = text[pos : nl + 1] if nl != -1 else text[pos:]
            pos += len(piece)
            self._piece(piece, out)
        self._mid = (
            bool(self._head)
            and not self._line
            and self._fences.open is None
            and not self._open_cut
            and not self._spans.holding
        )  # what prose() asks of every chunk, known until the next write
        return "".join(out)

    def prose(self, text: str) -> str | None:
        """``text`` (plain: :func:`~citerender.stream.holdback.plain_prefix` passed it) written at once
        when it is prose inside a line already begun, with no fence, code span or cut open: most
        chunks of a stream, in one call. None otherwise (the stream then writes it the long way)."""
        if not self._mid or "\n" in text or "`" in text or text[-1:] == "\\":
            return None
        self._plain_text = True
        self._deferred.append(text)  # shown now; what it changes (none of the above) read later
        return text

    def _catch_up(self) -> None:
        """The bookkeeping of the prose chunks shown since the last write, in one step: it is the
        same for their text joined (a line's head, its context and tail only grow by it), and a
        token-by-token stream pays it once per run of prose instead of once per token. What
        :meth:`_piece` would do with plain text inside a line begun, without its steps."""
        text = "".join(self._deferred)
        self._deferred.clear()
        room = _HEAD - len(self._head)
        if room > 0:
            self._head += text[:room]
        self._rest_blank = self._rest_blank and not text[max(room, 0) :].strip()
        self._context = (self._context + text)[-_CONTEXT:]
        self._remember(text)
        if text.strip(" \t"):
            self._line_blank_in = False

    def close(self) -> str:
        if self._deferred:
            self._catch_up()
        self._mid = False
        out: list[str] = []
        if self._line:
            self._text("".join(self._line), out, plain=False)
            self._line = []
        self._text("", out, paragraph_end=True)
        return "".join(out)

    # ------------------------------------------------------------------ lines

    def _piece(self, piece: str, out: list[str]) -> None:
        """A piece of one line (ending with its newline, or the chunk's end)."""
        ends = piece.endswith("\n")
        at_start = not self._head and not self._line and self._rest_blank
        room = max(_HEAD - len(self._head), 0)
        self._head += piece[:room].rstrip("\n")
        self._rest_blank = self._rest_blank and not piece[room:].strip()
        if self._fences.open is not None:  # a fenced block's line: code
            self._write(piece, [(0, len(piece))], out, plain=self._plain_text)
        elif self._line or (at_start and may_open_fence(self._head)):
            self._line.append(piece)
            if not ends and not may_open_fence(self._head):  # it opens none: text after all
                self._text("".join(self._line), out, plain=False)
                self._line = []
        else:
            self._text(piece, out)
        if ends:
            self._line_end(out)

    def _line_end(self, out: list[str]) -> None:
        was_open = self._fences.open is not None
        kind = self._fences.line(self._head, self._rest_blank)
        blank = not self._head.strip() and self._rest_blank
        self._head, self._rest_blank = "", True
        line, self._line = "".join(self._line), []
        if kind == "open":  # a fence interrupts the paragraph: its line is code
            self._text("", out, paragraph_end=True)
            self._write(line, [(0, len(line))], out, plain=False)
            return
        if line:
            self._text(line, out, plain=False)
        if blank and not was_open:
            self._text("", out, paragraph_end=True)

    def _text(self, text: str, out: list[str], *, paragraph_end: bool = False, plain: bool | None = None) -> None:
        """Paragraph text: written as far as its code spans are decided."""
        plain = (self._plain_text if plain is None else plain) and not self._spans.holding
        decided, spans = self._spans.feed(text, paragraph_end=paragraph_end)
        if decided:
            self._write(decided, spans, out, plain=plain and decided == text)

    # ------------------------------------------------------------------ marks

    def _write(self, text: str, code: list[tuple[int, int]], out: list[str], *, plain: bool) -> None:
        """Decided text, ``code`` its code ranges: each citation becomes its placeholder, other
        marks go; in code only the invisible characters go."""
        if plain or self._unmarked(text):  # nothing to scan: as it is (a cut still open waits for its next character)
            self._context = (self._context + text)[-_CONTEXT:]
            out.append(self._join_at_cuts(text, []))
            self._note_line(text)
            return
        pieces: list[str] = []
        cuts: list[int] = []  # output offsets where something was removed inside the text
        size = 0  # characters in pieces (a running count: summing per mark would be quadratic)
        pos, k = 0, 0
        for mk in scan(text, fmt=self.fmt, context=self._context):
            size += self._plain(text[pos : mk.start], pieces, cuts, size, code, pos)
            while k < len(code) and code[k][1] <= mk.start:
                k += 1
            if k < len(code) and code[k][0] <= mk.start:  # the author's code: only the invisible characters go
                kept = RESERVED_RE.sub("", mk.raw)
                if kept != mk.raw:
                    self.diagnostics.append(Diagnostic.make("CR302", "invisible marker characters removed from code"))
                residue = any(c == "CR212" for c, _ in mk.notes) and not self.keep_code_residue
                if residue and not joins_runs(text, mk.start, mk.end, "`~"):
                    kept = ""  # copy residue is never the author's code (as the one-shot render does)
                    self.diagnostics.append(Diagnostic.make("CR212", "ChatGPT copy residue removed from code"))
                if not kept and self._opens_line(text, mk.start):
                    kept = ZWSP  # as in the Markdown export: the line stays inside the code span
                pieces.append(kept)
                size += len(kept)
                pos = mk.end
                continue
            for c, detail in mk.notes:
                self.diagnostics.append(Diagnostic.make(c, detail))
            pieces.append(mk.text)
            size += len(mk.text)
            if mk.kind is MarkKind.CITATION and mk.citation is not None:
                placeholder = "".join(self.placeholder.format(n=n) for n in self.numbers(mk.citation.source_ids))
                pieces.append(placeholder)
                size += len(placeholder)
            elif not mk.text and (self._opens_line(text, mk.start) or joins_runs(text, mk.start, mk.end)):
                pieces.append(ZWSP)  # the line stays what it was: a removal could leave it blank or a block opener
                size += 1
            else:
                cuts.append(size - len(mk.text))
            pos = mk.end
        self._plain(text[pos:], pieces, cuts, size, code, pos)
        self._context = (self._context + text)[-_CONTEXT:]
        out.append(self._join_at_cuts("".join(pieces), cuts))
        self._note_line(text)

    def _unmarked(self, text: str) -> bool:
        """Would :func:`scan` find nothing in ``text``, and does it hold no percent-encoded residue?
        (The scanner's own tests, without its set-up: the front sends every chunk holding a ``:``
        or ``[`` here, and most of them are prose.)"""
        return (
            "%" not in text
            and self._triggers.search(text) is None
            and not has_escape(text)
            and not may_hold_copy_paste(text, self.fmt)
        )

    def _opens_line(self, text: str, at: int) -> bool:
        """Does ``text[at]`` stand at the start of its line, after blanks only, in the input (as
        the export judges it, so any split of the input decides alike)?"""
        nl = text.rfind("\n", 0, at)
        return not text[nl + 1 : at].strip(" \t") and (nl != -1 or self._line_blank_in)

    def _note_line(self, text: str) -> None:
        """Whether the input's current line is still blank after ``text``."""
        if "\n" in text:
            self._line_blank_in = not text.rsplit("\n", 1)[1].strip(" \t")
        elif text.strip(" \t"):
            self._line_blank_in = False

    def _plain(
        self, text: str, out: list[str], cuts: list[int], at: int, code: list[tuple[int, int]], offset: int
    ) -> int:
        """Copy plain text; percent-encoded residue (``%EE%88%80``) goes outside code, and is
        noted as a cut at its output offset (``at``). Returns the characters copied."""
        if "%" not in text or not has_residue(text):
            out.append(text)
            return len(text)
        copied = 0
        pos = 0
        for m in RESIDUE.finditer(text):
            out.append(text[pos : m.start()])
            copied += m.start() - pos
            pos = m.end()
            where = offset + m.start()
            if any(s <= where < e for s, e in code) and not RESERVED_RE.fullmatch(m.group(0)):
                out.append(m.group(0))  # visible: the author's code, kept
                copied += len(m.group(0))
                continue
            cuts.append(at + copied)
            self.diagnostics.append(Diagnostic.make("CR109", "marker residue removed from the output"))
        out.append(text[pos:])
        return copied + len(text) - pos

    def _join_at_cuts(self, text: str, cuts: list[int]) -> str:
        """Where a removal joined two pieces of one word, put a zero-width space between them.

        The client renders this Markdown itself, and removing characters inside a word can make a
        URL the removal changed (``java`` + U+E201 + ``script:``, ``(`` + U+E201 + ``javascript:``).
        A zero-width space is invisible in prose but no scheme may contain or start with one, so a
        URL that needed a removal is never a live link. A cut at the end of what is written waits
        for the next character, so any split of the input gives the same output.
        """
        points = sorted(set(cuts))
        if not points and not self._open_cut:
            self._remember(text)
            return text
        if self._open_cut and text:
            if not points or points[0] != 0:
                points.insert(0, 0)
            self._open_cut = False
        out: list[str] = []
        pos = 0
        for c in points:
            if c >= len(text):
                self._open_cut = True
                continue
            out.append(text[pos:c])
            if needs_separator(
                (self._written_tail() + text[max(0, c - SEPARATOR_CONTEXT) : c])[-SEPARATOR_CONTEXT:], text[c : c + 1]
            ):
                out.append(ZWSP)
            pos = c
        out.append(text[pos:])
        result = "".join(out)
        self._tail = (self._written_tail() + result)[-SEPARATOR_CONTEXT:]
        return result

    def _remember(self, text: str) -> None:
        """Note ``text`` as written (joined into the tail only when the tail is read)."""
        self._tail_parts.append(text)
        self._tail_size += len(text)
        if self._tail_size > 4 * SEPARATOR_CONTEXT:
            self._written_tail()

    def _written_tail(self) -> str:
        """The last characters written (:data:`SEPARATOR_CONTEXT` of them)."""
        if self._tail_parts:
            self._tail = (self._tail + "".join(self._tail_parts))[-SEPARATOR_CONTEXT:]
            self._tail_parts.clear()
            self._tail_size = 0
        return self._tail
