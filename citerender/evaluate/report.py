"""``check-dataset --report``: one self-contained HTML page (no script, nothing fetched) with the
measures per group, charts (:mod:`.charts`, each with its data as a table), what each rate divides
by, the paired comparison, the most frequent diagnostics with an example each, and the worst
answers, each rendered to a page of its own with its unsupported claims marked. matplotlib is the
``report`` extra. Its cost is bounded in the groups: the table lists :data:`LISTED` (the rest
summed in one row), the charts draw :data:`CHARTED` and :data:`HISTOGRAM`, each saying so; every
group stays in the results and the ``--summary`` JSON.
"""

from __future__ import annotations

import hashlib
import re
from functools import reduce
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..codes import CODES
from ..jobs.files import write_atomic
from ..options import RenderOptions
from ..rendering.themes import load_theme
from ..syntax.residue import clean_html
from .check_dataset import DatasetSummary, group_key, one_line
from .intervals import METHOD
from .metrics import Totals, definitions
from .records import render_checked

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
#: groups listed in the measures table, drawn in the bar chart and in the histogram (most answers first)
LISTED, CHARTED, HISTOGRAM = 50, 24, 6


def write_report(summary: DatasetSummary, path: str | Path, options: RenderOptions | None = None) -> Path:
    """Write the report to ``path`` and the worst answers' pages to ``NAME.answers/`` beside it."""
    opts = options or RenderOptions()
    out = Path(path)
    th = load_theme(opts.theme)
    ranked = sorted(summary.groups.items(), key=lambda kv: (-kv[1].counts.get("answers", 0), kv[0]))
    shown = sorted(ranked[:LISTED])
    rows = [("All answers" if len(ranked) > 1 else ranked[0][0] if ranked else "all", summary.overall)] + (
        shown if len(ranked) > 1 else []
    )
    if len(ranked) > LISTED:  # the rest together, said so: the page's cost does not grow with the groups
        rest = reduce(Totals.merge, (t for _, t in ranked[LISTED:]), Totals())
        rows.append((f"the other {len(ranked) - LISTED:,} groups, together (each in --summary)", rest))
    table = [
        {"name": name, "answers": t.summary()["answers"], "rates": [_cell(t.summary()["rates"][m]) for m in _LABELS]}
        for name, t in rows
    ]
    codes = [
        {"code": code, "name": CODES[code].name if code in CODES else "", "count": n,
         "example": summary.examples.get(code, ("", ""))[1], "where": summary.examples.get(code, ("", ""))[0]}
        for code, n in sorted(summary.overall.codes.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
    ]  # fmt: skip
    charted = [rows[0], *sorted(ranked[:CHARTED])] if len(ranked) > 1 else rows[:1]
    html = th.render_dataset_report(
        title="Citation quality",
        css=th.css.replace("</", "<\\/"),
        judge=summary.judge,
        answers=summary.overall.summary()["answers"],
        failures=summary.overall.failures,
        group_by=", ".join(summary.group_by),
        metrics=[{"label": v} for v in _LABELS.values()],
        definitions=[{"label": _LABELS[m], "text": text} for m, text in definitions(summary.scored).items()],
        intervals=f"{METHOD}: answers resampled, not claims,",
        comparison=_comparison(summary),
        alce=_alce(summary),
        groups=table,
        charts=_charts(summary, charted, [name for name, _ in ranked[:HISTOGRAM]], len(ranked)),
        codes=codes,
        worst=_worst_pages(summary, out, opts),
    )
    write_atomic(out, clean_html(html)[0])
    return out


def _worst_pages(summary: DatasetSummary, out: Path, opts: RenderOptions) -> list[dict[str, Any]]:
    """The worst answers, each rendered to a page of its own named by its row (ids shared across
    rows get a page each); one whose page could not be written is not listed."""
    pages = out.with_name(out.stem + ".answers")
    worst = []
    for result, record in summary.worst_first():
        rid = str(result.get("id"))
        row = result.get("row")
        page = pages / (f"row{row}-{_file_name(rid)}.html" if isinstance(row, int) else f"{_file_name(rid)}.html")
        rendered = render_checked(record, opts, **summary.cols, standalone=True, mark_unsupported=True)
        if rendered["failure"]:
            continue
        write_atomic(page, rendered["html"], make_parents=True)
        m = result["metrics"]
        worst.append(
            {
                "id": rid if row is None else f"{rid} (row {row})",
                "href": f"./{quote(pages.name)}/{quote(page.name)}",
                "group": group_key(result, summary.group_by),
                "support": _pct(m.get("support_rate"), 0),
                "unsupported": m.get("unsupported", 0),
                "unknown": m.get("unknown_ids", 0),
                "invented": m.get("invented_locators", 0),
            }
        )
    return worst


def _comparison(summary: DatasetSummary) -> dict[str, Any] | None:
    """The paired comparison's table (``--compare``), or None."""
    if summary.compare is None:
        return None
    c = summary.compare.summary()
    if not c["questions"]:
        caption = f"No question was answered by both values of {c['column']} (paired by {c['pair_by']})"
        return {"column": one_line(c["column"]), "caption": caption, "header": [], "rows": []}
    first, second = one_line(c["first"]), one_line(c["second"])
    rows = []
    for m, r in c["rates"].items():
        if r["difference"] is None:
            rows.append([_LABELS[m], "–", "–", "–", "–"])
            continue
        lo, hi = r["ci95"]
        rows.append([_LABELS[m], _pct(r["first"]), _pct(r["second"]), f"{100 * r['difference']:+.1f} points",
                     f"{100 * lo:+.1f} to {100 * hi:+.1f}"])  # fmt: skip
    return {
        "column": one_line(c["column"]),
        "caption": f"{second} minus {first}, on the {c['questions']:,} questions both answered (paired by"
        f" {one_line(c['pair_by'])}); 95% intervals: a bootstrap over questions",
        "header": ["Rate", first, second, "Difference", "95% interval"],
        "rows": rows,
    }


def _alce(summary: DatasetSummary) -> dict[str, Any] | None:
    """ALCE's aggregates (``--alce``), as the summary holds them, or None."""
    if summary.alce is None:
        return None
    a = summary.alce_summary()
    shown = {k: "–" if a[k] is None else f"{a[k]:.1f}" for k in ("alce_citation_recall", "alce_citation_precision")}
    return {"recall": shown["alce_citation_recall"], "precision": shown["alce_citation_precision"],
            "scored": a["items_scored"], "definition": a["definition"]}  # fmt: skip


def _pct(value: float | None, places: int = 1) -> str:
    return "–" if value is None else f"{value:.{places}%}"


def _cell(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return "–"
    lo, hi = rate["ci95"]
    return f"{rate['value']:.1%} ({lo:.0%}–{hi:.0%}, n={rate['n']})"


def _file_name(rid: str) -> str:
    """A safe file name for an answer's page; ids that would read alike (``a/b``, ``a-b``) differ by a hash."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", rid)[:80].strip(".-") or "answer"
    return safe if safe == rid else f"{safe}-{hashlib.sha256(rid.encode('utf-8', 'replace')).hexdigest()[:8]}"


def _charts(
    summary: DatasetSummary, rows: list[tuple[str, Any]], hist_groups: list[str], groups: int
) -> list[dict[str, Any]]:
    from .charts import hist_svg, rates_svg

    names = [name for name, _ in rows]
    rates = [[t.summary()["rates"][m] for m in _SHOWN] for _, t in rows]
    more = f" (the {CHARTED} groups with the most answers, of {groups:,})" if groups > CHARTED else ""
    bars = {
        "svg": rates_svg(
            names,
            rates,
            [_LABELS[m] for m in _SHOWN],
            "Dot plot: support rate, citation recall and citation precision per group, with 95% intervals",
        ),
        "caption": f"Support rate, citation recall and citation precision per group, with 95% intervals{more}",
        "header": ["Group", *(_LABELS[m] for m in _SHOWN)],
        "rows": [[name, *(_cell(r) for r in rs)] for name, rs in zip(names, rates, strict=True)],
    }
    hist_names = sorted(g for g in hist_groups if g in summary.hist)
    more = f" (the {HISTOGRAM} groups with the most answers, of {groups:,})" if groups > HISTOGRAM else ""
    hist = {
        "svg": hist_svg(
            {g: summary.hist[g] for g in hist_names}, "Histogram: answers by their support rate, per group"
        ),
        "caption": f"How many answers reach each support rate (answers with a checked claim){more}",
        "header": ["Support rate", *hist_names],
        "rows": [[f"{10 * k}–{10 * k + 10}%", *(summary.hist[g][k] for g in hist_names)] for k in range(10)],
    }
    return [bars, hist]
