"""TeX as MathML, rendered server-side: latex2mathml's output rebuilt from a MathML allow-list of
elements, attributes and values (it passes ``\\text{<script>}``, ``\\href{javascript:…}`` and any
size through), so a formula can neither run anything nor take over the layout."""

from __future__ import annotations

from functools import lru_cache
from html import escape
from typing import Any

from ..lazy_re import lazy_compile

__all__ = ["MATHML_ELEMENTS", "MAX_MATH_CHARS", "allowed_value", "math_html"]

MAX_MATH_CHARS = 5_000  # longer formulas are shown as code (latex2mathml's time grows with them)

MATHML_ELEMENTS = frozenset(
    {"math", "semantics", "annotation"}  # a formula and what annotates it
    | {"mi", "mn", "mo", "ms", "mtext", "mspace"}  # tokens
    | {"mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror", "mpadded", "mphantom", "mfenced", "menclose"}  # layout
    | {"msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mprescripts", "none"}  # scripts
    | {"mtable", "mtr", "mtd", "mlabeledtr"}  # tables
)
_MATH_ATTRS = frozenset(
    {"display", "displaystyle", "scriptlevel", "mathvariant", "mathsize", "mathcolor", "mathbackground"}  # style
    | {"form", "fence", "separator", "stretchy", "symmetric", "largeop", "movablelimits", "accent", "accentunder"}  # mo
    | {"lspace", "rspace", "minsize", "maxsize", "width", "height", "depth", "linethickness"}  # sizes
    | {"align", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines"}  # tables
    | {"frame", "framespacing", "columnspan", "rowspan"}  # tables and cells
    | {"open", "close", "separators", "notation", "encoding"}  # fences, enclosures, annotations
)
_SAFE_VALUE = lazy_compile(r"[\w\s.#%+\-,|()\[\]{}/:=]*")
_COLOURS = frozenset({"mathcolor", "mathbackground"})
_COLOUR = lazy_compile(r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|[A-Za-z]{1,20}")
_LENGTHS = frozenset(
    {"width", "height", "depth", "lspace", "rspace", "mathsize", "minsize", "maxsize", "linethickness",
     "columnspacing", "rowspacing", "framespacing"}
)  # fmt: skip
#: ems per unit, to bound a length: \rule{100000px}{100000px} drew a 100000 px black box
_EM_PER = {"em": 1.0, "ex": 0.5, "px": 1 / 16, "pt": 1 / 12, "pc": 1.0, "in": 6.0, "cm": 6 / 2.54, "mm": 0.6 / 2.54,
           "mu": 1 / 18, "%": 0.01, "": 1.0}  # fmt: skip
_LENGTH = lazy_compile(r"([+-]?(?:\d+(?:\.\d*)?|\.\d+))(em|ex|px|pt|pc|in|cm|mm|mu|%)?|[a-z]+")
#: the largest length a formula may ask for
MAX_MATH_EMS = 50.0


def allowed_value(name: str, value: str) -> bool:
    """Is ``name="value"`` a MathML attribute we pass through? Names from an allow-list; colours
    only as names or hex (``url(javascript:…)`` passed the character check); lengths bounded."""
    if name not in _MATH_ATTRS or not _SAFE_VALUE.fullmatch(value):
        return False
    if name in _COLOURS:
        return _COLOUR.fullmatch(value.strip()) is not None
    if name in _LENGTHS:
        return all(_short(v) for v in value.split()) if value.strip() else True
    return True


def _short(length: str) -> bool:
    m = _LENGTH.fullmatch(length)
    if m is None:
        return False
    if m.group(1) is None:  # a named space (thin, medium, veryverythickmathspace…) or "auto"
        return len(length) <= 32
    return abs(float(m.group(1))) * _EM_PER[m.group(2) or ""] <= MAX_MATH_EMS


_NS = "{http://www.w3.org/1998/Math/MathML}"


def math_html(tex: str, options: dict[str, Any] | None = None) -> str:
    """TeX to MathML (latex2mathml), every element and attribute checked against a MathML
    allow-list: latex2mathml passes ``\\text{<script>}`` and ``\\href{javascript:…}`` through.
    Invalid or over-long TeX is shown as code, never an exception."""
    return _math(tex, bool(options and options.get("display_mode")))


@lru_cache(maxsize=1024)
def _math(tex: str, display: bool) -> str:
    mathml = _convert(tex, display)
    if mathml is None:
        return f'<code class="citerender-math-error" title="formula not rendered">{escape(tex)}</code>'
    return mathml


def _convert(tex: str, display: bool) -> str | None:
    from xml.etree import ElementTree  # loaded with the first formula, as latex2mathml is

    from latex2mathml.converter import convert

    if not tex.strip() or len(tex) > MAX_MATH_CHARS:
        return None
    try:
        raw = convert(tex, display="block" if display else "inline")
        root = ElementTree.fromstring(raw)
    except Exception:  # latex2mathml raises many kinds on invalid TeX; any of them means "show as code"
        return None
    return _serialise(root)


def _serialise(el: Any) -> str | None:  # an ElementTree element
    tag = el.tag.removeprefix(_NS)
    if tag not in MATHML_ELEMENTS:
        return None
    attrs = "".join(f' {k}="{escape(v)}"' for k, v in el.attrib.items() if allowed_value(k, v))
    if tag == "math":
        attrs = ' xmlns="http://www.w3.org/1998/Math/MathML"' + attrs
    parts = [f"<{tag}{attrs}>", escape(el.text or "", quote=False)]
    for child in el:
        inner = _serialise(child)
        if inner is None:
            return None  # an element outside MathML (latex2mathml copied it from the TeX): not rendered
        parts.append(inner)
        parts.append(escape(child.tail or "", quote=False))
    parts.append(f"</{tag}>")
    return "".join(parts)
