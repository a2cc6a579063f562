"""Adapters: providers' structured citations → a registry plus an answer with markers.

Not every model writes markers; APIs also return citations as data. Each adapter (one module per
provider, the format table in :mod:`citerender.formats`) turns a saved response, or its streaming
events folded first (:func:`collect_events`), into an answer with markers and a ``Registry``, so the
same renderers, checks and exports apply. Where the text numbers its citations itself (``[doc1]``),
it is left as written and ``Registry.dialect`` says what each number names. Text positions go
through :mod:`.offsets` (repairs reported in ``Adapted.notes``), and every citation lands where
:mod:`.zones` lets it: never inside inline code, a link, a URL or a code block.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .common import Adapted
    from .responses import PROVIDERS, adapt, collect_events, detect_provider, load_response, resembles

__all__ = ["PROVIDERS", "Adapted", "adapt", "collect_events", "detect_provider", "load_response", "resembles"]


def __getattr__(name: str) -> Any:
    """The adapters load on first use: reading an answer (``citerender render answer.md``) goes
    through :mod:`.inputs` and needs none of them."""
    if name in __all__:
        from . import responses

        return getattr(responses, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
