"""The regular expressions of the dialects, compiled once per format, and entity names."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from ..lazy_re import lazy_compile
from ..records import record
from .format import CitationFormat
from .types import MAX_MARKER_BODY

__all__ = [
    "COPY_RESIDUE_RE",
    "CURLY",
    "DAGGER_RE",
    "ECHO_RE",
    "NAV_FAMILIES",
    "TURN_ID",
    "Patterns",
    "entity_name",
    "entity_name_from",
    "may_hold_copied",
    "patterns",
]

TURN_ID = r"turn\d+[a-z]+\d+"
NAV_FAMILIES = frozenset({"navlist", "filenavlist"})
CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u201e": '"'})


@record(frozen=True, compile_init=False)  # built a few times a process: no __init__ compiled at import
class Patterns:
    trigger: re.Pattern[str]
    trigger_chars: re.Pattern[str]
    canonical: re.Pattern[str]
    unterminated: re.Pattern[str]
    bare: re.Pattern[str]
    copy_paste: re.Pattern[str]
    bracket_family: re.Pattern[str]
    unclosed_bracket: re.Pattern[str]


@lru_cache(maxsize=32)
def patterns(fmt: CitationFormat) -> Patterns:
    d = re.escape(fmt.delimiter)
    chars = re.escape(fmt.marker_chars + "\u3010")
    fams = "|".join(re.escape(f) for f in sorted(fmt.families, key=len, reverse=True))
    ident = rf"(?:{TURN_ID}|{fmt.id_pattern})"
    # each compiled when first used: most answers meet only the canonical form
    return Patterns(
        trigger=lazy_compile(
            rf"[{chars}]|(?<![A-Za-z0-9])(?:{fams})(?=turn\d)|(?<![A-Za-z0-9_])entity(?=\[)"
            r"|(?<!:):*contentReference(?=\[oaicite:)"
        ),
        trigger_chars=lazy_compile(rf"[{chars}]"),
        canonical=re.compile(
            rf"{re.escape(fmt.start)}({fams}){d}([^{re.escape(fmt.start + fmt.stop)}\n]{{0,{MAX_MARKER_BODY}}})"
            rf"{re.escape(fmt.stop)}"
        ),
        unterminated=lazy_compile(rf"([A-Za-z_]*){d}([A-Za-z0-9_:\-\u2013]+(?:{d}[A-Za-z0-9_:\-\u2013]+)*)"),
        bare=lazy_compile(rf"{d}({ident}(?:{d}{ident})*)(?:{d}(L\d+(?:[-\u2013]L\d+)?))?"),
        copy_paste=lazy_compile(rf"({fams})((?:{TURN_ID})+)(L\d+(?:[-\u2013]L\d+)?)?"),
        # a bracket form never spans another bracket or a marker: it cannot swallow the next one
        bracket_family=lazy_compile(
            rf"\u3010([A-Za-z_]+)\|([^\u3010\u3011\n{re.escape(fmt.start + fmt.stop)}]{{0,{MAX_MARKER_BODY}}})\u3011"
        ),
        # a citation bracket (gpt-oss / Assistants dagger, or a citation family and a pipe) that
        # reaches the next bracket, the end of the line or the text without closing
        unclosed_bracket=lazy_compile(
            rf"\u3010(?:\d+(?::\d+)?\u2020|F:[^\u3010\u3011\n]{{0,1000}}\u2020|(?:{fams}|navlist|filenavlist|url)\|)"
            rf"[^\u3010\u3011\n{re.escape(fmt.start + fmt.stop)}]{{0,300}}(?=\u3010|\n|\Z)"
        ),
    )


DAGGER_RE = lazy_compile(r"\u3010(\d+(?::\d+)?)\u2020([^\u3010\u3011\n\ue200\ue201]{1,300})\u3011")
ECHO_RE = lazy_compile(rf"\u3010({TURN_ID})\u3011")
ENTITY_OPEN = lazy_compile(r'\[\s*["\u201c\u201d]')
LONE_SURROGATE = lazy_compile("[\ud800-\udfff]")
# what copying a ChatGPT answer leaves where a citation was: one or more colons, then this
COPY_RESIDUE_RE = lazy_compile(r":*contentReference\[oaicite:\d{1,9}\]\{index=\d{1,9}\}")


QUOTED_RE = lazy_compile(r'"((?:[^"\\]|\\.)*)"')


def may_hold_copied(text: str) -> bool:
    """Could ``text`` hold one of ChatGPT's copied forms (:mod:`.copied`)? (Plain substring tests,
    here so that every answer's precheck does not load the forms' readers.)"""
    return "oai_citation" in text or "<Cite" in text or "<Link" in text or "fallbackMarkdown" in text


def entity_name_from(value: object, *, strict: bool = False) -> str | None:
    """The display name in an entity payload (``["people", "Ada Lovelace", 0]``); ``strict``
    (the stripped copy-paste form) accepts only that shape: type and name, both strings."""
    name = _entity_name_from(value, strict)
    return LONE_SURROGATE.sub("\ufffd", name) if name is not None else None  # JSON may decode "\ud800"


def _entity_name_from(value: object, strict: bool) -> str | None:
    if strict:
        ok = isinstance(value, list) and len(value) >= 2 and isinstance(value[0], str) and isinstance(value[1], str)
        return value[1].strip() or None if ok else None  # type: ignore[index]
    if isinstance(value, list) and value:
        if len(value) >= 2 and isinstance(value[1], str) and value[1].strip():
            return value[1].strip()
        if isinstance(value[0], str) and value[0].strip():
            return value[0].strip()
    return None


_ESCAPED_QUOTE = lazy_compile(r'\\+"')


def entity_name(payload: str) -> str | None:
    """The display name in a marker's entity payload, also when the answer went through JSON
    once or twice more (``[\\"people\\", \\"Ada Lovelace\\", 0]``)."""
    payload = payload.translate(CURLY).strip()
    if '\\"' in payload:
        payload = _ESCAPED_QUOTE.sub('"', payload)
    try:
        name = entity_name_from(json.loads(payload))
    except (ValueError, RecursionError):
        name = None
    if name is None:
        quoted = QUOTED_RE.findall(payload)
        if len(quoted) >= 2:
            name = quoted[1].strip() or None
        elif quoted:
            name = quoted[0].strip() or None
    return name
