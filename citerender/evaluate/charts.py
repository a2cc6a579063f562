"""The report's charts: matplotlib figures as inline SVG, read at any width and in either colour
scheme. Group rates are a dot plot, a row a group (names never overlap), each rate a marker with
its 95% interval on an axis fitted to the data (a 5-point difference between 70% and 92% stays
visible). Text is :data:`FONT` points on :data:`WIDTH` inches (10 CSS pixels or more on a phone),
legends sit below the plot, backgrounds are transparent and black is ``currentColor`` (dark mode
draws light on dark); text stays text, never parsed as mathtext (``cost$$`` is just that).
"""

from __future__ import annotations

import io
import math
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from markupsafe import Markup

from ..errors import CiterenderError
from .check_dataset import one_line

__all__ = ["FONT", "WIDTH", "hist_svg", "rates_svg"]

FONT = 10.5
WIDTH = 4.4
#: one colour and marker a rate: told apart without colour too (Okabe–Ito colours)
_STYLES = (("#0072B2", "o"), ("#D55E00", "s"), ("#009E73", "D"))
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)
_BLACK = re.compile(r"#000000\b")
_SIZES = ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize", "ytick.labelsize", "legend.fontsize")
_RC: Any = {
    "svg.fonttype": "none",
    "svg.hashsalt": "citerender",
    "savefig.transparent": True,
    **dict.fromkeys(_SIZES, FONT),
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
    with _axes(1.4 + 0.4 * len(names)) as (fig, ax):
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
    with _axes(2.6 + 0.25 * len(hist)) as (fig, ax):
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


@contextmanager
def _axes(height: float) -> Iterator[tuple[Any, Any]]:
    """A figure :data:`WIDTH` wide and ``height`` inches high, and its axes, drawn in the charts' style."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise CiterenderError("the report's charts need matplotlib", hint="pip install 'citerender[report]'") from None

    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(WIDTH, height), layout="constrained")
        yield fig, fig.subplots()


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
