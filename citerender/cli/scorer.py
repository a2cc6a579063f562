"""``--scorer MODULE:NAME``: a support scorer the team already has, imported by name (nothing is
downloaded). ``NAME`` is an object with ``score(claim, evidence)``, a class building one with no
arguments, or a plain function ``(claim, evidence) -> float``."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ..errors import CiterenderError
from ..options import SupportScorer

__all__ = ["load_scorer"]


class _FunctionScorer:
    def __init__(self, fn: Callable[[str, str], float]) -> None:
        self.fn = fn

    def score(self, claim: str, evidence: str) -> float:
        return float(self.fn(claim, evidence))


def load_scorer(spec: str) -> SupportScorer:
    """The scorer named by ``MODULE:NAME``."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise CiterenderError(f"--scorer {spec!r} is not MODULE:NAME", hint="e.g. --scorer my_models.nli:scorer")
    try:
        obj = getattr(import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise CiterenderError(f"--scorer {spec!r} cannot be loaded: {e}", hint="is the module on PYTHONPATH?") from None
    if isinstance(obj, type):
        obj = obj()
    if isinstance(obj, SupportScorer):
        return obj
    if callable(obj):
        return _FunctionScorer(obj)
    raise CiterenderError(f"--scorer {spec!r} is neither a scorer nor a function", hint="give score(claim, evidence)")
