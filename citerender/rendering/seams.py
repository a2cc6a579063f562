"""The last tidying of the fast engine's output: citation groups left without a source go, and
the text either side of them is joined without a stray space (as :func:`tidy_seam` does for
markdown-it's tokens)."""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token

from ..syntax.marks import tidy_seam

__all__ = ["drop_empty"]


def _is_text(x: Any) -> bool:
    return isinstance(x, str) and not x.startswith("<")


def drop_empty(out: list[Any]) -> list[Any]:
    """Citation groups left without a source (unknown ids dropped) go, leaving no stray space."""
    kept: list[Any] = []
    seam = False
    for x in out:
        if isinstance(x, Token) and not x.meta["uses"]:
            seam = True
            continue
        if x == "":
            continue
        if seam:
            seam = False
            left = bool(kept) and _is_text(kept[-1])
            if _is_text(x):
                if left:
                    kept[-1], x = tidy_seam(kept[-1], x)
                elif not kept or not str(kept[-1]).startswith("</"):
                    x = tidy_seam("", x)[1]
            elif left and x.startswith("</"):  # the element ends: no space before it
                kept[-1] = tidy_seam(kept[-1], "")[0]
        kept.append(x)
    if seam and kept and _is_text(kept[-1]):
        kept[-1] = tidy_seam(kept[-1], "")[0]
    return kept
