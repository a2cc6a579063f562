"""Finding every mark real models emit: the canonical markers and every degraded dialect
(escapes, copy-paste, bracket-pipe, bare anchors, gpt-oss, Assistants, …), each as a :class:`Mark`
saying what it means and what was non-canonical about it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace

from .escapes import normalize_escapes, printable
from .format import DEFAULT_FORMAT, ITEM_SEPARATOR, WIDGET_FAMILIES, CitationFormat
from .marks import remap, shift
from .patterns import (
    COPY_RESIDUE_RE,
    CURLY,
    DAGGER_RE,
    ECHO_RE,
    ENTITY_OPEN,
    NAV_FAMILIES,
    TURN_ID,
    entity_name,
    entity_name_from,
    patterns,
)
from .types import MAX_MARKER_BODY, Citation, Mark, MarkKind, parse_locator, pop_locator

__all__ = ["Scanner", "may_hold_copy_paste", "scan"]


def may_hold_copy_paste(text: str, fmt: CitationFormat) -> bool:
    """Could ``text`` hold a copy-paste form (``citeturn0search3``, ``entity[…]``)? Plain
    substring tests, so that most texts skip the slow pattern."""
    return (
        ("turn" in text and any(f in text for f in fmt.families)) or "entity[" in text or ("contentReference[" in text)
    )


class Scanner:
    """Scans escape-normalised text; ``at(i)`` reads the mark starting at a trigger position. One
    method per dialect, sharing the cached searches that keep many broken markers in a row linear."""

    def __init__(self, text: str, fmt: CitationFormat) -> None:
        self.text = text
        self.fmt = fmt
        self.p = patterns(fmt)
        self._next: dict[str, tuple[int, int]] = {}

    def _find(self, ch: str, pos: int) -> int:
        """First index of ``ch`` at or after ``pos`` (-1 if none), reusing earlier searches."""
        cached = self._next.get(ch)
        if cached is not None:
            searched_from, found = cached
            if searched_from <= pos and (found == -1 or found >= pos):
                return found
        found = self.text.find(ch, pos)
        self._next[ch] = (pos, found)
        return found

    def scan(self, start: int = 0, end: int | None = None) -> list[Mark]:
        text = self.text
        end = len(text) if end is None else end
        marks: list[Mark] = []
        pos = start
        # Copy-paste forms need the slow pattern with alternatives; most texts have none.
        search = (self.p.trigger if may_hold_copy_paste(text, self.fmt) else self.p.trigger_chars).search
        while True:
            m = search(text, pos, end)
            if m is None:
                return marks
            mk = self.at(m.start(), end)
            if mk is None:
                pos = m.start() + 1
            else:
                marks.append(mk)
                pos = mk.end

    def at(self, i: int, end: int | None = None) -> Mark | None:
        """The mark starting at ``i`` (a trigger position), or None when it is plain text."""
        text = self.text
        end = len(text) if end is None else end
        ch = text[i]
        fmt = self.fmt
        if ch == fmt.start:
            return self._pua(i, end)
        if ch == fmt.delimiter:
            return self._bare(i, end)
        if ch == fmt.highlight_start:
            return Mark(MarkKind.HIGHLIGHT_OPEN, i, i + 1, ch, notes=(("CR206", "highlight span start"),))
        if ch == fmt.highlight_stop:
            return Mark(MarkKind.HIGHLIGHT_CLOSE, i, i + 1, ch, notes=(("CR206", "highlight span end"),))
        if ch == "\u3010":
            return self._bracket(i, end)
        if ch in fmt.marker_chars:
            return Mark.drop(i, i + 1, ch, "CR109", f"stray marker character U+{ord(ch):04X} removed")
        return self._copy_paste(i, end)

    # -- canonical private-use markers

    def _pua(self, i: int, end: int) -> Mark:
        fmt = self.fmt
        m = self.p.canonical.match(self.text, i, end)
        if m is not None:  # fast path: a well-formed marker of a citation family
            family, body = m.groups()
            return self._citation(i, m.end(), family, body.split(fmt.delimiter), "canonical", ())
        stop = self._find(fmt.stop, i + 1)
        limit = min([end, *(x for x in (self._find(fmt.start, i + 1), self._find("\n", i + 1)) if x != -1)])
        if stop == -1 or stop >= limit or stop - i > MAX_MARKER_BODY:
            return self._unterminated(i, limit)
        parts = self.text[i + 1 : stop].split(fmt.delimiter)
        return self._interpret(i, stop + 1, parts[0], parts[1:], fmt.delimiter, ())

    def _unterminated(self, i: int, limit: int) -> Mark:
        m = self.p.unterminated.match(self.text, i + 1, limit)
        if m is not None:
            family = m.group(1)
            if family == "" or family in self.fmt.families:
                mk = self._interpret(
                    i,
                    m.end(),
                    family,
                    m.group(2).split(self.fmt.delimiter),
                    self.fmt.delimiter,
                    (("CR107", "unterminated marker recovered"),),
                )
                if mk.kind is MarkKind.CITATION:
                    return mk
        # Drop the opening character, the family word and its delimiter; the rest stays text.
        j = i + 1
        while j < limit and (self.text[j].isalnum() or self.text[j] == "_"):
            j += 1
        if j < limit and self.text[j] == self.fmt.delimiter:
            j += 1
        return Mark.drop(i, j, self.text[i:j], "CR107", "unterminated marker")

    def _interpret(
        self,
        start: int,
        end: int,
        family: str,
        payload: list[str],
        sep: str,
        notes: tuple[tuple[str, str], ...],
    ) -> Mark:
        fam = family.strip()
        fmt = self.fmt
        if fam == "" and payload:
            return self._citation(
                start,
                end,
                fmt.families[0],
                payload,
                "family-less",
                (*notes, ("CR204", "marker without a family read as a citation")),
            )
        if fam in fmt.families:
            return self._citation(start, end, fam, payload, "canonical", notes)
        if fam == "entity":
            return self._entity(start, end, entity_name(sep.join(payload)), notes)
        if fam in NAV_FAMILIES:
            return self._navlist(start, end, fam, payload, notes)
        if fam == "url" and len(payload) >= 2:
            mk = self._citation(start, end, fmt.families[0], payload[1:], "url", notes)
            if mk.kind is MarkKind.CITATION and mk.citation is not None:
                anchor = payload[0].strip()
                return replace(mk, text=anchor, citation=replace(mk.citation, title=anchor))
            return mk
        raw = self.text[start:end]
        if fam in WIDGET_FAMILIES or re.fullmatch(r"[A-Za-z_]+", fam):
            what = "widget" if fam in WIDGET_FAMILIES else "unknown"
            return Mark.drop(start, end, raw, "CR105", f"{what} family {fam!r} removed", notes)
        return Mark.drop(start, end, raw, "CR106", "marker without a readable family removed", notes)

    def _citation(
        self,
        start: int,
        end: int,
        family: str,
        payload: Sequence[str],
        dialect: str,
        notes: tuple[tuple[str, str], ...],
    ) -> Mark:
        raw = self.text[start:end]
        parts = [p for p in map(str.strip, payload) if p]
        if not parts:
            return Mark.drop(start, end, raw, "CR104", "empty marker removed", notes)
        locator, lines, written = pop_locator(parts)
        if written is not None:
            notes += (("CR108", f"locator {printable(written)} read as {locator}"),)
        if not parts:
            return Mark.drop(start, end, raw, "CR104", "marker holds a locator but no source id", notes)
        match = self.fmt.id_re.match
        for p in parts:
            if match(p) is None:  # ids separated by commas, or the first invalid one
                split = [x for q in parts for x in re.split(r"\s*[,;]\s*", q) if x]
                if len(split) <= len(parts) or not all(match(x) for x in split):
                    return Mark.drop(start, end, raw, "CR106", f"source id {printable(p, 60)} is not a valid id", notes)
                notes += (("CR108", "ids separated by commas were split"),)
                parts = split
                break
        cit = Citation(raw, family, tuple(parts), locator, start, end, lines, dialect)
        return Mark(MarkKind.CITATION, start, end, raw, citation=cit, notes=notes)

    def _entity(self, start: int, end: int, name: str | None, notes: tuple[tuple[str, str], ...]) -> Mark:
        """An entity shown as its display name (``name``), or removed when it has none."""
        raw = self.text[start:end]
        if name is None:
            return Mark.drop(start, end, raw, "CR106", "entity marker without a readable name removed", notes)
        return Mark(
            MarkKind.TEXT,
            start,
            end,
            raw,
            text=name,
            notes=(*notes, ("CR210", f"entity shown as {printable(name, 60)}")),
        )

    def _navlist(
        self, start: int, end: int, family: str, payload: list[str], notes: tuple[tuple[str, str], ...]
    ) -> Mark:
        raw = self.text[start:end]
        # a filenavlist has items only, no title: "4:0\ue205description|4:2\ue205…"
        title = payload[0].strip() if payload and family != "filenavlist" else ""
        listed = payload if family == "filenavlist" else payload[1:]
        items = [x.split(ITEM_SEPARATOR)[0].strip() for p in listed for x in p.split(",")]
        ids = tuple(x for x in items if x and (self.fmt.id_re.match(x) or re.fullmatch(r"\d+:\d+", x)))
        if not ids:
            return Mark.drop(start, end, raw, "CR106", f"{family} marker without valid source ids removed", notes)
        cit = Citation(raw, family, ids, None, start, end, None, family, title or None)
        return Mark.cite(cit, *notes, ("CR211", f"{family} with {len(ids)} source(s)"))

    # -- degraded forms

    def _bare(self, i: int, end: int) -> Mark:
        m = self.p.bare.match(self.text, i, min(end, i + MAX_MARKER_BODY + 2))
        if m is None or m.end() - i > MAX_MARKER_BODY:  # longer than any real marker: not an anchor
            return Mark.drop(i, i + 1, self.text[i], "CR109", "stray delimiter U+E202 removed")
        payload = m.group(1).split(self.fmt.delimiter) + ([m.group(2)] if m.group(2) else [])
        return self._citation(
            i, m.end(), self.fmt.families[0], payload, "bare-anchor", (("CR205", "bare anchor read as a citation"),)
        )

    def _bracket(self, i: int, end: int) -> Mark | None:
        text = self.text
        m = self.p.bracket_family.match(text, i, end)
        if m is not None:
            fam = m.group(1)
            known = fam in self.fmt.families or fam in NAV_FAMILIES or fam in WIDGET_FAMILIES
            if known or fam in ("entity", "url"):
                note = (("CR203", f"bracket-pipe {fam} marker"),)
                mk = self._interpret(i, m.end(), fam, m.group(2).split("|"), "|", note)
                if mk.citation is not None and mk.citation.dialect == "canonical":
                    mk = replace(mk, citation=replace(mk.citation, dialect="bracket-pipe"))
                return mk
        if text.startswith("\u3010F:", i):  # Codex's form: its reader loaded when one is met
            from .codex import CODEX_RE, codex_mark

            m = CODEX_RE.match(text, i, end)
            if m is not None:
                return codex_mark(i, m)
        m = DAGGER_RE.match(text, i, end)
        if m is not None:
            src, label = m.group(1), m.group(2).strip()
            lines, _ = parse_locator(label)
            raw = m.group(0)
            if lines is not None and ":" not in src:
                cit = Citation(raw, "cite", (src,), str(lines), i, m.end(), lines, "gpt-oss")
                return Mark.cite(cit, ("CR207", f"gpt-oss citation of source {src}"))
            title = None if label.lower() == "source" else label.strip("()") or None
            cit = Citation(raw, "cite", (src,), None, i, m.end(), None, "assistants", title)
            return Mark.cite(cit, ("CR208", f"Assistants-era citation of source {src}"))
        m = ECHO_RE.match(text, i, end)
        if m is not None:
            cit = Citation(m.group(0), "cite", (m.group(1),), None, i, m.end(), None, "echo")
            return Mark.cite(cit, ("CR209", f"reference echo {m.group(1)}"))
        m = self.p.unclosed_bracket.match(text, i, end)
        if m is not None:  # a bracket citation that never closes: removed, never shown raw
            return Mark.drop(i, m.end(), m.group(0), "CR107", "unterminated bracket citation removed")
        return None

    def _copy_paste(self, i: int, end: int) -> Mark | None:
        text = self.text
        if text[i] in ":c":
            m = COPY_RESIDUE_RE.match(text, i, end)
            if m is not None:
                return Mark.drop(i, m.end(), m.group(0), "CR212", "ChatGPT copy residue removed")
        if text.startswith("entity[", i):
            # only the real shape: ["type", "name", …] after a non-identifier boundary, so that
            # code such as config.entity["people"] or entity["name"] is never taken for a marker
            if (i and (text[i - 1].isalnum() or text[i - 1] in "_.")) or not ENTITY_OPEN.match(text, i + 6, end):
                return None
            window = text[i + 6 : min(end, i + 6 + MAX_MARKER_BODY)].translate(CURLY)
            try:
                value, used = json.JSONDecoder().raw_decode(window)
            except (ValueError, RecursionError):
                return None
            name = entity_name_from(value, strict=True)
            if name is None:
                return None
            return self._entity(i, i + 6 + used, name, (("CR202", "entity without its marker characters"),))
        m = self.p.copy_paste.match(text, i, end)
        if m is None:
            return None
        ids = re.findall(TURN_ID, m.group(2))
        payload = ids + ([m.group(3)] if m.group(3) else [])
        return self._citation(
            i, m.end(), m.group(1), payload, "copy-paste", (("CR202", "marker without its private-use characters"),)
        )


def scan(text: str, *, fmt: CitationFormat = DEFAULT_FORMAT, context: str = "") -> list[Mark]:
    """Every mark in ``text``, in order, non-overlapping, with offsets into ``text`` as given.

    Literal escapes (``\\ue200``, ``\\\\uE200``, ``&#xE200;``) are read as the characters; such
    marks carry a ``CR201`` note. ``context`` is text that came just before ``text`` (a stream's
    last characters): it decides word boundaries (``xciteturn0…`` is no marker) but is not scanned.
    """
    norm, omap = normalize_escapes(text)
    if context:
        ctx = normalize_escapes(context)[0]
        found = Scanner(ctx + norm, fmt).scan(len(ctx))
        marks = [shift(mk, -len(ctx)) for mk in found]
    else:
        marks = Scanner(norm, fmt).scan()
    if not omap:
        return marks
    return [remap(mk, omap, text) for mk in marks]
