"""One options object: the same defaults for every entry point, and the option bugs it fixed."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import citerender
from citerender import CitationFormat, RenderOptions, StreamRenderer, render, render_answer
from citerender.publish import mkdocs, sphinx
from citerender.publish.site import build_site
from citerender.sources.model import registry_from_data

REG = registry_from_data([{"id": "s1", "title": "One", "url": "https://one.example/"}])


def test_stream_html_honours_a_custom_format() -> None:
    # was: the stream built its HTML parser with fmt=None and showed the raw custom characters
    fmt = CitationFormat(start="\u2045", stop="\u2046", delimiter="\u2016")
    text = "Claim.\u2045cite\u2016s1\u2046\n"
    for output in ("html", "markdown"):
        sr = StreamRenderer(REG, output=output, fmt=fmt)
        out = sr.feed(text) + sr.close()
        assert "\u2045" not in out and "\u2046" not in out and "\u2016" not in out, output
        assert ("#ref-1" in out) if output == "html" else ("[^1]" in out)


def test_render_honours_the_formats_families() -> None:
    # was: the default families= argument overrode fmt.families and dropped every marker (CR105)
    r = render("Claim.\ue200source\ue202s1\ue201", REG, fmt=CitationFormat(families=("source",)))
    assert "#ref-1" in r.html
    assert all(d.code != "CR105" for d in r.diagnostics)
    # families= still works as a convenience, and wins over the format's own
    r = render("Claim.\ue200source\ue202s1\ue201", REG, families=("source",))
    assert "#ref-1" in r.html


def test_every_entry_point_has_the_same_defaults() -> None:
    d = RenderOptions()
    assert (d.style, d.theme, d.unknown, d.images, d.html) == ("footnotes", "default", "drop", "text", False)
    text = "Claim.\ue200cite\ue202s1\ue201"
    assert "citerender-footnotes" in render(text, REG).html
    assert "citerender-footnotes" in str(render_answer(text, REG))
    sr = StreamRenderer(REG, output="html")
    assert "citerender-footnotes" in sr.feed(text) + sr.close()
    assert sr.options == d
    assert mkdocs.CiterenderConfig.style.default == d.style  # type: ignore[attr-defined]
    assert mkdocs.CiterenderConfig.theme.default == d.theme  # type: ignore[attr-defined]
    assert d == sphinx._DEFAULTS
    assert inspect.signature(build_site).parameters["options"].default is None


def test_options_are_validated_with_the_choices_named() -> None:
    with pytest.raises(ValueError, match="style must be one of footnotes, superscript, hovercard, pills"):
        RenderOptions(style="bubbles")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="markdown must be one of full, commonmark"):
        RenderOptions(markdown="gfm")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unknown option"):
        RenderOptions.build(stlye="hovercard")
    with pytest.raises(dataclasses.FrozenInstanceError):
        d = RenderOptions()
        d.style = "hovercard"  # type: ignore[misc]


def test_keywords_build_over_an_options_object() -> None:
    base = RenderOptions(style="hovercard", unknown="keep")
    opts = RenderOptions.build(base, theme="report")
    assert (opts.style, opts.unknown, opts.theme) == ("hovercard", "keep", "report")
    r = render("Claim.\ue200cite\ue202nope\ue201", REG, base)
    assert "citerender-unverified" in r.html


def test_public_names_are_listed_once_and_importable() -> None:
    src = inspect.getsource(citerender)
    lazy = citerender._LAZY  # type: ignore[attr-defined]
    assert sorted(citerender.__all__) == sorted(lazy)
    for name in citerender.__all__:
        assert src.count(f'"{name}": ') == 1
        assert f" {name}" in src.split("_LAZY = {")[0], f"{name} missing from the TYPE_CHECKING imports"
        assert getattr(citerender, name) is not None
