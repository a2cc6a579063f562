"""``check``: every problem in an answer, before anything is shown to a reader."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostic
from ..options import RenderOptions
from ..plugin.state import CitationState
from ..rendering.pipeline import pipeline
from ..sources.model import Registry
from .evidence import SupportReport
from .quality import QualityReport, measure_quality

__all__ = ["check", "check_with_reports"]


def check(
    text: str, registry: Registry | None = None, options: RenderOptions | None = None, **kwargs: Any
) -> list[Diagnostic]:
    """Validity (ids, locators, syntax, dialects), placement and support (CR401–CR406)
    diagnostics, sorted by place.

    Placement is judged on markdown-it-py's tokens, so a marker in a code span or emphasis is
    recognised as such whatever the Markdown around it. ``options`` (or keyword arguments such as
    ``families`` and ``fmt``) as for :func:`citerender.render`; unknown ids are always reported.
    """
    return _checked(text, registry, options, **kwargs)[0]


def check_with_reports(
    text: str, registry: Registry | None = None, options: RenderOptions | None = None, **kwargs: Any
) -> tuple[list[Diagnostic], QualityReport, SupportReport]:
    """:func:`check`, :func:`~citerender.model.quality.quality_report` and
    :func:`~citerender.model.evidence.support_report` from one parse (``check --report``): a
    team's scorer (``scorer=``) judges each claim once, not once per report."""
    diagnostics, tokens, st = _checked(text, registry, options, **kwargs)
    return diagnostics, measure_quality(tokens, st, registry), SupportReport(list(st.claims))


def _checked(
    text: str, registry: Registry | None, options: RenderOptions | None, **kwargs: Any
) -> tuple[list[Diagnostic], list[Token], CitationState]:
    opts = replace(
        RenderOptions.build(options, **kwargs), style="footnotes", unknown="keep", bibliography=False, evidence=True
    )
    parsed = pipeline(opts).parse(text, registry)
    return parsed.diagnostics, parsed.tokens, parsed.state
