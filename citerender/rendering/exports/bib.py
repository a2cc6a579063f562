"""The cited sources as BibTeX and RIS, the two files reference managers (Zotero, EndNote,
Mendeley) and ``pandoc --citeproc`` import: one entry per cited source, in citation order, with
its title, URL, date, site and the lines the answer cites.

Both are data for another program: every value is one line, BibTeX's special characters are
escaped so a title cannot open a field or a command, keys are unique and made of safe characters,
and only links the URL policy allows are written."""

from __future__ import annotations

import re
from urllib.parse import quote

from ...plugin.state import Reference
from ...sources.urls import safe_url
from .parsed import Parsed, date_parts, finish, lines_label

__all__ = ["to_bibtex", "to_ris"]

_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9_:.-]+")
_BIBTEX_SPECIAL = re.compile(r"[\\{}%&$#_^~]")
_BIBTEX_ESCAPES = {"\\": r"\textbackslash{}", "^": r"\^{}", "~": r"\~{}"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")


def _one_line(text: str) -> str:
    return " ".join(_CONTROL.sub(" ", text).split())


def _keyed(p: Parsed) -> list[tuple[str, Reference]]:
    """The cited references, then the consulted ones, each with a citation key: its source id,
    made safe, unique (``id``, ``id-2``…)."""
    seen: set[str] = set()
    out = []
    for ref in [*p.references, *p.state.consulted]:
        base = _KEY_UNSAFE.sub("-", ref.source.id).strip("-")[:60] or f"source{ref.number}"
        key, n = base, 1
        while key.casefold() in seen:
            n += 1
            key = f"{base}-{n}"
        seen.add(key.casefold())
        out.append((key, ref))
    return out


def _bibtex_value(text: str) -> str:
    return _BIBTEX_SPECIAL.sub(lambda m: _BIBTEX_ESCAPES.get(m.group(), "\\" + m.group()), _one_line(text))


#: what a URL field cannot hold as written: a brace or backslash (BibTeX syntax), a space or line
#: break of any kind (the field is one line), a control or an invisible format character
_URL_UNSAFE = re.compile(r"[{}\\\s\x00-\x1f\x7f-\x9f\u00ad\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def _bibtex_url(url: str) -> str:
    """A URL inside braces, as given: a BibTeX reader (pandoc, biber) takes the field verbatim, so
    an existing ``%XX`` escape and any other character stays as written; only what the field
    cannot hold is percent-encoded, as its UTF-8 bytes (U+2028 is ``%E2%80%A8``, never ``%2028``;
    a brace ``%7B``, as a browser sends it)."""
    return _URL_UNSAFE.sub(lambda m: quote(m.group(), safe=""), url)


def to_bibtex(p: Parsed) -> str:
    """``@online`` entries (``@misc`` for a source without a URL) for every cited source, then
    every consulted one (``keywords = {consulted}``)."""
    entries = []
    for key, ref in _keyed(p):
        s = ref.source
        url, date = safe_url(s.url), date_parts(s.updated)
        note = ", ".join(x for x in (lines_label(ref), None if ref.known else "unverified source") if x)
        fields = [("title", _bibtex_value(s.label))]
        if url:
            fields.append(("url", _bibtex_url(url)))
        if s.domain:
            fields.append(("organization", _bibtex_value(s.domain)))
        if date:
            fields.append(("date", "-".join(date)))
        if note:
            fields.append(("note", _bibtex_value(note)))
        if ref in p.state.consulted:
            fields.append(("keywords", "consulted"))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{'online' if url else 'misc'}{{{key},\n{body}\n}}\n")
    return finish(p, "", "\n".join(entries))


def to_ris(p: Parsed) -> str:
    """``TY  - ELEC`` records (``GEN`` for a source without a URL) for every cited source, then
    every consulted one (``KW  - consulted``)."""
    records = []
    for key, ref in _keyed(p):
        s = ref.source
        url, date, note = safe_url(s.url), date_parts(s.updated), lines_label(ref)
        tags = [("TY", "ELEC" if url else "GEN"), ("ID", key), ("TI", _one_line(s.label))]
        if url:
            tags.append(("UR", _one_line(url)))
        if s.domain:
            tags.append(("T2", _one_line(s.domain)))
        if date:
            tags += [("PY", date[0]), ("DA", "/".join(date))]
        if note:
            tags.append(("N1", _one_line(note)))
        if not ref.known:
            tags.append(("N1", "unverified source"))
        if ref in p.state.consulted:
            tags.append(("KW", "consulted"))
        records.append("".join(f"{tag}  - {value}\n" for tag, value in tags) + "ER  - \n")
    return finish(p, "", "\n".join(records))
