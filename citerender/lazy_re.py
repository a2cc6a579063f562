"""Regular expressions compiled on first use (issue 50, start-up: ``re`` compiles in pure Python).

:func:`lazy_compile` gives an object whose first method call compiles the pattern; from then on its
methods are the compiled pattern's own, read from the instance's ``__dict__``. For module-private
constants only: it is not a ``re.Pattern`` (``isinstance``, equality, pickling), so a pattern that
is passed on or stored in a value stays compiled.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["lazy_compile"]

#: what a compiled pattern offers, bound once on first use
_NAMES: tuple[str, ...] = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")
_NAMES += ("flags", "groups", "groupindex")


class _LazyPattern:
    """A pattern's source until a method is asked for; then the compiled pattern's methods."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:  # only for names not yet in __dict__: the first use
        if name.startswith("__"):  # copy's and pickle's probes: no compiling for them
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for n in _NAMES:
            self.__dict__[n] = getattr(compiled, n)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r})"


def lazy_compile(pattern: str, flags: int | re.RegexFlag = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, int(flags)))
