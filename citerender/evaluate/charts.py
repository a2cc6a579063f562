"""The report's charts: matplotlib figures as inline SVG, drawn to be read at any width and in
either colour scheme.

* The groups' rates are a dot plot, one row per group (so 18 or more group names never overlap),
  each rate a marker with its 95% interval, the value axis fitted to the data (rates that all lie
  between 70% and 92% are not drawn on 0–100, where a 5-point difference is invisible).
* Text is :data:`FONT` points on a figure :data:`WIDTH` inches wide: scaled down to a phone's
  width it stays at 10 CSS pixels or more. Legends sit below the plot, never on its marks.
* Backgrounds are transparent and black is drawn in ``currentColor``: the page's own text colour,
  so a chart in dark mode is light on dark, with no white panel.
* Text stays text (the reader's fonts draw it) and is never parsed as mathtext: a group called
  ``cost$$`` is just that.
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from .check_dataset import one_line

__all__ = ["FONT", "WIDTH", "hist_svg", "rates_svg"]

FONT = 10.5
WIDTH = 4.4
#: one colour and marker a rate: told apart without colour too (Okabe–Ito colours)
_STYLES = (("#0072B2", "o"), ("#D55E00", "s"), ("#009E73", "D"))
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_BLACK = re.compile(r"#000000\b")
_RC: Any = {  # matplotlib types its keys as literals
    "svg.fonttype": "none",
    "svg.hashsalt": "citerender",
    "font.size": FONT,
    "axes.titlesize": FONT,
    "axes.labelsize": FONT,
    "xtick.labelsize": FONT,
    "ytick.labelsize": FONT,
    "legend.fontsize": FONT,
    "savefig.transparent": True,
}


def label(name: str, most: int = 24) -> str:
    """A group's name as a chart draws it: one line, control characters named, at most ``most``
    characters."""
    shown = one_line(name)
    shown = shown if len(shown) <= most else shown[: most - 1] + "…"
    return "\u2009" + shown if shown.startswith("_") else shown  # matplotlib hides labels starting with _


def fitted(lows: Sequence[float], highs: Sequence[float]) -> tuple[float, float]:
    """The value axis (percent) around the data: to the nearest 5 beyond it, at least 10 wide, within 0–100."""
    if not lows:
        return 0.0, 100.0
    lo = max(0.0, 5 * math.floor((min(lows) - 1) / 5))
    hi = min(100.0, 5 * math.ceil((max(highs) + 1) / 5))
    if hi - lo < 10:
        lo, hi = max(0.0, hi - 10), min(100.0, max(hi, lo + 10))
    return lo, hi


def rates_svg(names: list[str], rates: list[list[dict[str, Any]]], labels: Sequence[str], title: str) -> Markup:
    """Each group a row, each rate a marker with its 95% interval (``rates[group][rate]`` as the
    summary holds it: ``value`` and ``ci95``)."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(WIDTH, 1.4 + 0.4 * len(names)), layout="constrained")
        ax = fig.subplots()
        lows, highs = [], []
        for j, name in enumerate(labels):
            ys, xs, below, above = [], [], [], []
            for i, r in enumerate(rates):
                value = r[j]["value"]
                if value is None:
                    continue
                lo, hi = r[j]["ci95"] or (value, value)
                ys.append(i + (j - 1) * 0.24)
                xs.append(100 * value)
                below.append(100 * (value - lo))
                above.append(100 * (hi - value))
                lows.append(100 * lo)
                highs.append(100 * hi)
            colour, marker = _STYLES[j % len(_STYLES)]
            ax.errorbar(xs, ys, xerr=[below, above], fmt=marker, color=colour, markersize=4.5, capsize=2,
                        elinewidth=1.1, label=name)  # fmt: skip
        ax.set_yticks(range(len(names)), [label(n) for n in names], parse_math=False)
        ax.set_ylim(len(names) - 0.5, -0.5)  # the first group at the top
        ax.set_xlim(*fitted(lows, highs))
        ax.set_xlabel("% (95% interval as a line)")
        ax.grid(axis="x", linewidth=0.5, color="#999999", alpha=0.5)
        _plain_text(fig.legend(loc="outside lower center", ncols=2, frameon=False))
        return _svg(fig, title)


def hist_svg(hist: dict[str, list[int]], title: str) -> Markup:
    """Answers per tenth of the support rate, a bar a group in each tenth."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(WIDTH, 2.6 + 0.25 * len(hist)), layout="constrained")
        ax = fig.subplots()
        n = max(len(hist), 1)
        for j, (name, counts) in enumerate(sorted(hist.items())):
            xs = [k * 10 + 5 + (j - (n - 1) / 2) * 8 / n for k in range(10)]
            ax.bar(xs, counts, 8 / n, label=label(name, 32))
        ax.set_xlabel("support rate of the answer (%)")
        ax.set_ylabel("answers")
        ax.set_xlim(0, 100)
        ax.set_xticks(range(0, 101, 20))
        if hist:
            _plain_text(fig.legend(loc="outside lower center", ncols=1, frameon=False))
        return _svg(fig, title)


def _plain_text(legend: Any) -> None:
    """A legend's labels drawn as written: ``$`` is a dollar sign, not mathtext."""
    for text in legend.get_texts():
        text.set_parse_math(False)


def _svg(fig: Any, title: str) -> Markup:
    """A figure as inline SVG: text as text, deterministic ids, black as the page's text colour,
    an accessible name."""
    buf = io.StringIO()
    with warnings.catch_warnings():
        # text stays text (the reader's fonts draw it): a glyph matplotlib's own font lacks is no matter
        warnings.filterwarnings("ignore", message="Glyph .* missing from font", category=UserWarning)
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": "citerender"}, bbox_inches="tight")
    svg = buf.getvalue()
    svg = _METADATA.sub("", svg[svg.index("<svg") :])  # the RDF block names namespaces, nothing a reader needs
    svg = _BLACK.sub("currentColor", svg)
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{Markup.escape(title)}" fill="currentColor" ', 1)
    return Markup(svg)
