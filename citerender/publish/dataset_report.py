"""The page a person looks at after ``check-dataset --report``: one self-contained HTML file (no
script, nothing fetched) with the measures per group, charts drawn by matplotlib as inline SVG
(text kept as text, each with a title and its data as a table for screen readers), the most
frequent diagnostics with an example each, and the worst answers, each rendered to a page of its
own with its unsupported claims marked.

matplotlib is an optional extra: ``pip install 'citerender[report]'``.
"""

from __future__ import annotations

import hashlib
import io
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from ..codes import CODES
from ..errors import CiterenderError
from ..options import RenderOptions
from ..rendering.themes import load_theme
from ..syntax.residue import clean_html
from .check_dataset import DatasetSummary, group_key
from .files import write_atomic
from .records import render_record

__all__ = ["write_report"]

_LABELS = {
    "citation_coverage": "Citation coverage",
    "support_rate": "Support rate",
    "citation_recall": "Citation recall",
    "citation_precision": "Citation precision",
    "unknown_id_rate": "Unknown ids",
    "invented_locator_rate": "Invented locators",
}
_SHOWN = ("support_rate", "citation_recall", "citation_precision")  # charted, per group
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)


def write_report(summary: DatasetSummary, path: str | Path, options: RenderOptions | None = None) -> Path:
    """Write the report to ``path`` and the worst answers' pages to ``NAME.answers/`` beside it."""
    opts = options or RenderOptions()
    out = Path(path)
    pages = out.with_name(out.stem + ".answers")
    th = load_theme(opts.theme)
    groups = sorted(summary.groups.items())
    rows = [("All answers" if len(groups) > 1 else groups[0][0] if groups else "all", summary.overall)] + (
        list(groups) if len(groups) > 1 else []
    )
    table = [
        {"name": name, "answers": t.summary()["answers"], "rates": [_cell(t.summary()["rates"][m]) for m in _LABELS]}
        for name, t in rows
    ]
    worst = []
    for result, record in summary.worst_first():
        rid = str(result.get("id"))
        page = pages / f"{_file_name(rid)}.html"
        rendered = render_record(record, opts, standalone=True, mark_unsupported=True)  # its claims marked
        if not rendered["failure"]:
            write_atomic(page, rendered["html"], make_parents=True)
        m = result["metrics"]
        worst.append(
            {
                "id": rid,
                "href": f"./{quote(pages.name)}/{quote(page.name)}",
                "group": group_key(result, summary.group_by),
                "support": _pct(m.get("support_rate")),
                "unsupported": m.get("unsupported", 0),
                "unknown": m.get("unknown_ids", 0),
                "invented": m.get("invented_locators", 0),
            }
        )
    codes = [
        {"code": code, "name": CODES[code].name if code in CODES else "", "count": n,
         "example": summary.examples.get(code, ("", ""))[1], "where": summary.examples.get(code, ("", ""))[0]}
        for code, n in sorted(summary.overall.codes.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
    ]  # fmt: skip
    html = th.render_dataset_report(
        title="Citation quality",
        css=th.css.replace("</", "<\\/"),
        judge=summary.judge,
        answers=summary.overall.summary()["answers"],
        failures=summary.overall.failures,
        group_by=", ".join(summary.group_by),
        metrics=[{"label": v} for v in _LABELS.values()],
        groups=table,
        charts=_charts(summary, rows),
        codes=codes,
        worst=worst,
    )
    write_atomic(out, clean_html(html)[0])
    return out


def _cell(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "–"
    lo, hi = rate["ci95"]
    return f"{rate['value']:.1%} ({lo:.0%}–{hi:.0%}, n={rate['n']})"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _file_name(rid: str) -> str:
    """A safe file name for an answer's page; ids that would read alike (``a/b``, ``a-b``) differ by a hash."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", rid)[:80].strip(".-") or "answer"
    return safe if safe == rid else f"{safe}-{hashlib.sha256(rid.encode('utf-8', 'replace')).hexdigest()[:8]}"


def _charts(summary: DatasetSummary, rows: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    try:
        import matplotlib  # noqa: F401 - only to say what to install
    except ImportError:
        raise CiterenderError("the report's charts need matplotlib", hint="pip install 'citerender[report]'") from None
    names = [name for name, _ in rows]
    rates = [[t.summary()["rates"][m] for m in _SHOWN] for _, t in rows]
    bars = {
        "svg": _bar_svg(names, rates),
        "caption": "Support rate, citation recall and citation precision per group, with 95% intervals",
        "header": ["Group", *(_LABELS[m] for m in _SHOWN)],
        "rows": [[name, *(_cell(r) for r in rs)] for name, rs in zip(names, rates, strict=True)],
    }
    hist = {
        "svg": _hist_svg(summary),
        "caption": "How many answers reach each support rate (answers with a checked claim)",
        "header": ["Support rate", *sorted(summary.hist)],
        "rows": [[f"{10 * k}–{10 * k + 10}%", *(summary.hist[g][k] for g in sorted(summary.hist))] for k in range(10)],
    }
    return [bars, hist]


def _svg(fig: Any, label: str) -> Markup:
    """A figure as inline SVG: text as text, deterministic ids, an accessible name."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "citerender"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "citerender"}, bbox_inches="tight")
    svg = buf.getvalue()
    svg = _METADATA.sub("", svg[svg.index("<svg") :])  # the RDF block names namespaces, nothing a reader needs
    escaped = Markup.escape(label)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{escaped}" ', 1)
    return Markup(svg)


def _bar_svg(names: list[str], rates: list[list[dict[str, Any]]]) -> Markup:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3.2))
    ax = fig.subplots()
    width = 0.8 / len(_SHOWN)
    for j, metric in enumerate(_SHOWN):
        xs = [i + (j - 1) * width for i in range(len(names))]
        values = [100 * (r[j]["value"] or 0) for r in rates]
        lows = [
            v - 100 * (r[j]["ci95"] or (0, 0))[0] if r[j]["value"] is not None else 0
            for v, r in zip(values, rates, strict=True)
        ]
        highs = [
            100 * (r[j]["ci95"] or (0, 0))[1] - v if r[j]["value"] is not None else 0
            for v, r in zip(values, rates, strict=True)
        ]
        ax.bar(xs, values, width, yerr=[lows, highs], capsize=3, label=_LABELS[metric])
    ax.set_xticks(range(len(names)), [n[:30] for n in names])
    ax.set_ylabel("%")
    ax.set_ylim(0, 105)
    ax.legend(loc="lower right", fontsize="small")
    return _svg(fig, "Bar chart: support rate, citation recall and citation precision per group")


def _hist_svg(summary: DatasetSummary) -> Markup:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 3))
    ax = fig.subplots()
    n = max(len(summary.hist), 1)
    for j, (name, counts) in enumerate(sorted(summary.hist.items())):
        ax.bar([k * 10 + 5 + (j - (n - 1) / 2) * 8 / n for k in range(10)], counts, 8 / n, label=name[:30])
    ax.set_xlabel("support rate of the answer (%)")
    ax.set_ylabel("answers")
    ax.set_xlim(0, 100)
    if summary.hist:
        ax.legend(fontsize="small")
    return _svg(fig, "Histogram: answers by their support rate, per group")
