"""The fields of one source entry of a data file, checked one by one: its id, its title and URL
(strings within limits), its date (ISO), its numbered lines or its text. Each problem is a
:class:`CiterenderError` naming the entry, the file and the line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CiterenderError
from ..syntax.format import CitationFormat

__all__ = [
    "KNOWN_KEYS",
    "MAX_TITLE_CHARS",
    "MAX_URL_CHARS",
    "check_date",
    "check_strings",
    "lines_or_text",
    "source_id",
]

MAX_TITLE_CHARS = 2_000
MAX_URL_CHARS = 8_192
#: the keys a source entry may have; any other is kept in its ``meta``
KNOWN_KEYS = {"id", "title", "url", "updated", "lines", "text", "meta"}


def check_date(value: object, where: str, path: str | None, line: int | None) -> str | None:
    """The entry's ``updated`` date as ISO text (a string as written, a YAML or TOML date read)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if _plain_date(text) or _iso(text):
            return text
        problem = f"is not an ISO date: '{value[:40]}'"
    else:
        from datetime import date  # a YAML or TOML reader gave a date: datetime is loaded already

        if isinstance(value, date):  # a datetime too
            return value.isoformat()
        problem = f"must be an ISO date string, not {type(value).__name__}"
    raise CiterenderError(f"{where}: 'updated' {problem}", path=path, line=line, hint="write it as 2026-03-01")


_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _plain_date(text: str) -> bool:
    """Is ``text`` a calendar day written ``2026-03-01``? (What sources write; it needs no
    ``datetime``, whose import is a tenth of reading a sources file.)"""
    if len(text) != 10 or text[4] != "-" or text[7] != "-":
        return False
    digits = text[:4] + text[5:7] + text[8:]
    if not (digits.isascii() and digits.isdigit()):
        return False
    year, month, day = int(text[:4]), int(text[5:7]), int(text[8:])
    if year < 1 or not 1 <= month <= 12 or not 1 <= day <= _DAYS[month - 1]:
        return False
    return month != 2 or day < 29 or (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))


def _iso(text: str) -> bool:
    """Does ``datetime`` read ``text`` as an ISO date or date and time?"""
    from datetime import date, datetime

    for read in (datetime.fromisoformat, date.fromisoformat):
        try:
            read(text)
        except ValueError:
            continue
        return True
    return False


def source_id(item: Mapping[str, Any], where: str, path: str | None, line: int | None, fmt: CitationFormat) -> str:
    """The entry's id (a number is read as its digits), refused when missing or not an id."""
    if "id" not in item:
        raise CiterenderError(
            f"{where} has no 'id'", path=path, line=line, hint="add an id such as turn0file0 or block1"
        )
    sid = item["id"]
    if isinstance(sid, int) and not isinstance(sid, bool):
        sid = str(sid)
    if not isinstance(sid, str) or not fmt.id_re.match(sid):
        raise CiterenderError(
            f"{where}: id '{str(sid)[:60]}' is not a valid id",
            path=path,
            line=line,
            hint="ids use only letters, digits, '_' and '-'",
        )
    return sid


def check_strings(item: Mapping[str, Any], where: str, path: str | None, line: int | None) -> None:
    """``title`` and ``url``: strings within their limits."""
    for key, cap in (("title", MAX_TITLE_CHARS), ("url", MAX_URL_CHARS)):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise CiterenderError(f"{where}: {key!r} must be a string", path=path, line=line)
        if value is not None and len(value) > cap:
            raise CiterenderError(
                f"{where}: {key!r} has {len(value):,} characters, over the limit of {cap:,}", path=path, line=line
            )


def lines_or_text(
    item: Mapping[str, Any], where: str, path: str | None, line: int | None
) -> tuple[list[str] | None, str | None]:
    """The entry's numbered ``lines`` (a string is split into lines) or its ``text``, not both."""
    lines = item.get("lines")
    text = item.get("text")
    if lines is not None:
        if isinstance(lines, str):
            lines = lines.splitlines()
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise CiterenderError(
                f"{where}: 'lines' must be a list of strings",
                path=path,
                line=line,
                hint="line N of the list is cited as LN",
            )
        if text is not None:
            raise CiterenderError(f"{where}: give either 'lines' or 'text', not both", path=path, line=line)
    if text is not None and not isinstance(text, str):
        raise CiterenderError(f"{where}: 'text' must be a string", path=path, line=line)
    return lines, text
