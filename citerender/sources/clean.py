"""Source text as it enters: every string read from a sources file, a provider response or an
export is made safe once, here. A lone surrogate (JSON's ``"\\udfff"``) becomes U+FFFD (it cannot
be encoded as UTF-8); displayed text (a title, a cited line) loses every marker form, as answers'
prose does. What was changed is returned, to be reported (CR114).

:func:`clean_data` is also the one depth guard of parsed data: it refuses data nested deeper than
``MAX_NESTING``, so no later walk of the data can run out of stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import CiterenderError
from ..lazy_re import lazy_compile
from ..syntax.patterns import LONE_SURROGATE
from ..syntax.residue import has_residue, remove_residue

__all__ = ["MAX_NESTING", "clean_data", "display_text", "no_surrogates"]

#: the deepest nesting of lists and objects read (real responses and exports nest a few dozen at most)
MAX_NESTING = 100

_SPACES = lazy_compile(r"[ \t]{2,}")
_BEFORE_STOP = lazy_compile(r"[ \t]+([.,;:!?])")
#: every visible marker form holds one of these: bracket forms, copy-paste ids, residue, entities
_MARKER_WORDS = ("\u3010", "turn", "contentReference", "entity[", "navlist")


def no_surrogates(value: str) -> tuple[str, bool]:
    """``value`` with each lone surrogate replaced by U+FFFD, and whether there was one."""
    if value.isascii():
        return value, False
    try:  # UTF-8 has no surrogate: encoding fails on one, at C speed, with no pattern compiled
        value.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", value), True
    return value, False


def display_text(value: str) -> tuple[str, bool]:
    """``value`` without marker forms (the space a removal leaves tidied), and whether any went."""
    if not _may_hold_marker(value):
        return value, False
    from ..syntax.guide import strip_citations  # (a text that may hold a marker form only)

    stripped = remove_residue(strip_citations(value))
    if stripped == value:
        return value, False
    return _BEFORE_STOP.sub(r"\1", _SPACES.sub(" ", stripped)).strip(), True


def _may_hold_marker(value: str) -> bool:
    """A quick look for what every marker form holds (a linear scan, skipped for most lines)."""
    return has_residue(value) or any(w in value for w in _MARKER_WORDS)


def clean_data(
    value: Any, changed: list[str], where: str = "", *, depth: int = 0, path: str | None = None, line: int | None = None
) -> Any:
    """``value`` (parsed JSON/YAML) with lone surrogates replaced in every string, key and item;
    ``changed`` gets the place of each replacement. Data nested more than ``MAX_NESTING`` levels
    deep is a :class:`CiterenderError` naming ``path`` and ``line`` (the file the data came from):
    the recursion here, and every later walk of the data, stays bounded."""
    if isinstance(value, str):
        out, hit = no_surrogates(value)
        if hit:
            changed.append(where or "a value")
        return out
    if not isinstance(value, (Mapping, list)):
        return value
    if depth >= MAX_NESTING:
        raise CiterenderError(
            f"nested too deeply: more than {MAX_NESTING} levels of lists and objects"
            + (f" (at {where[:80]})" if where else ""),
            path=path,
            line=line,
            hint="flatten the data; no response, export or sources file nests that deep",
        )
    if isinstance(value, Mapping):
        return {
            clean_data(k, changed, where): clean_data(
                v, changed, f"{where}.{k}" if where else str(k), depth=depth + 1, path=path, line=line
            )
            for k, v in value.items()
        }
    return [clean_data(v, changed, where, depth=depth + 1, path=path, line=line) for v in value]
