"""``--scorer MODULE:NAME``: a support scorer the team already has, imported by name (nothing is
downloaded). ``NAME`` is an object with ``score(claim, evidence)``, a class building one with no
arguments, or a plain function ``(claim, evidence) -> float``.

The scorer is named by its ``MODULE:NAME`` wherever it is reported (CR407 says which scorer
returned what), and travels to worker processes (``check-dataset --jobs``) as that name: each
worker imports it once, so a scorer holding a lock, a model or a client works with any ``--jobs``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from typing import Any

from ..errors import CiterenderError
from ..options import SupportScorer

__all__ = ["NamedScorer", "load_scorer", "scorer_by_name"]


class NamedScorer:
    """A scorer loaded from ``MODULE:NAME``: scores as the named object does, reports as that
    name, and pickles as it (unpickled, it is imported again — once per process)."""

    def __init__(self, spec: str, scorer: SupportScorer | Callable[[str, str], Any]) -> None:
        self.name = spec
        self._score: Callable[[str, str], Any] = scorer.score if isinstance(scorer, SupportScorer) else scorer

    def score(self, claim: str, evidence: str) -> float:
        """The named scorer's value: a number (NumPy's and torch's scalars too) as a float, anything
        else as it was returned, so CR407 can say what came back (None, a string …)."""
        value = self._score(claim, evidence)
        if isinstance(value, str | bytes | bool) or value is None or not hasattr(value, "__float__"):
            return value  # type: ignore[no-any-return]  # judged (and reported) by the support checks
        try:
            return float(value)
        except (TypeError, ValueError, OverflowError):
            return value  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Callable[[str], SupportScorer], tuple[str]]:
        return scorer_by_name, (self.name,)

    def __repr__(self) -> str:
        return f"NamedScorer({self.name!r})"


def load_scorer(spec: str) -> SupportScorer:
    """The scorer named by ``MODULE:NAME``, imported now."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise CiterenderError(f"--scorer {spec!r} is not MODULE:NAME", hint="e.g. --scorer my_models.nli:scorer")
    try:
        obj = getattr(import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise CiterenderError(f"--scorer {spec!r} cannot be loaded: {e}", hint="is the module on PYTHONPATH?") from None
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as e:  # a team's class: its failure is the option's error, not our crash
            raise CiterenderError(f"--scorer {spec!r}: {name}() failed: {type(e).__name__}: {str(e)[:120]}") from None
    if isinstance(obj, SupportScorer) or callable(obj):
        return NamedScorer(spec, obj)
    raise CiterenderError(f"--scorer {spec!r} is neither a scorer nor a function", hint="give score(claim, evidence)")


@lru_cache(maxsize=8)
def scorer_by_name(spec: str) -> SupportScorer:
    """:func:`load_scorer`, once per process: what a worker runs when a scorer arrives by name."""
    return load_scorer(spec)
