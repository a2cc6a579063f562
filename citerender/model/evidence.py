"""The support report: every claim of an answer, the passage it cites, and whether the passage
supports it (see :mod:`citerender.evidence.support` for the checks), as data and as a table."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from ..evidence.claims import Claim
from ..options import RenderOptions, SupportScorer
from ..rendering.pipeline import pipeline
from ..sources.model import Registry
from ..syntax.types import line_locator

__all__ = ["SupportReport", "support_report"]

VERDICTS = ("supported", "weak", "unsupported", "unchecked")


@dataclass
class SupportReport:
    """The claims of one answer with their verdicts."""

    claims: list[Claim]

    def count(self, verdict: str) -> int:
        return sum(1 for c in self.claims if c.verdict == verdict)

    @property
    def supported_share(self) -> float | None:
        """Supported claims among those that could be checked (``unchecked`` left out); None when
        no claim could be checked — no share is claimed (never 100% of nothing, which a CI gate
        on the share would pass)."""
        checked = len(self.claims) - self.count("unchecked")
        return self.count("supported") / checked if checked else None

    def in_file(self, first_line: int) -> SupportReport:
        """The report with lines counted in the file, for an answer starting on its line
        ``first_line`` (after front matter), as its diagnostics are."""
        if first_line == 1:
            return self
        return SupportReport([replace(c, line=c.line + first_line - 1) for c in self.claims])

    def to_dict(self) -> dict[str, Any]:
        return {
            "claims": [c.to_dict() for c in self.claims],
            "counts": {v: self.count(v) for v in VERDICTS},
            "supported_share": None if self.supported_share is None else round(self.supported_share, 4),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def format(self, width: int = 60) -> str:
        """A per-claim table (line, verdict, cited passage, claim, reason) and the supported share."""
        rows = [("line", "verdict", "cites", "claim", "reason")]
        for c in self.claims:
            cites = ", ".join(f"[{e.number}]" + (f" {line_locator(*e.lines)}" if e.lines else "") for e in c.evidence)
            claim = c.text if len(c.text) <= width else c.text[: width - 1] + "…"
            rows.append((str(c.line), c.verdict, cites or "-", claim, "; ".join(c.reasons) or "-"))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = ["  ".join(r[i].ljust(widths[i]) for i in range(4)) + "  " + r[4] for r in rows]
        counts = ", ".join(f"{self.count(v)} {v}" for v in VERDICTS if self.count(v))
        share = self.supported_share
        if share is None:
            lines.append(f"supported: no claim could be checked, no share ({counts or 'no claims'})")
        else:
            lines.append(f"supported: {share:.0%} of checked claims ({counts})")
        return "\n".join(lines)


def support_report(
    text: str,
    registry: Registry | None = None,
    options: RenderOptions | None = None,
    *,
    scorer: SupportScorer | None = None,
    **kwargs: Any,
) -> SupportReport:
    """Check every claim of ``text`` against the passage it cites (``options`` or keyword
    arguments as for :func:`citerender.render`; ``scorer`` adds a model's judgement)."""
    opts = replace(
        RenderOptions.build(options, **kwargs), unknown="keep", bibliography=False, evidence=True, scorer=scorer
    )
    return SupportReport(list(pipeline(opts).parse(text, registry).state.claims))
