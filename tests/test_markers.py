"""The marker scanner: the guide's helper semantics, robustness, every dialect."""

from __future__ import annotations

import json
import re

import pytest
from conftest import DATA, FIXTURES, assert_no_marker, expand
from hypothesis import assume, given
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file

from bench.reference_helper import DELIM, START, STOP, ref_bodies, ref_extract, ref_strip
from citerender.syntax.format import CitationFormat
from citerender.syntax.guide import extract_citations, strip_citations
from citerender.syntax.scanner import Scanner, scan
from citerender.syntax.types import LineRange, MarkKind, parse_locator

S, D, E = START, DELIM, STOP

# --------------------------------------------------------------------------- fixture file


def _describe(mk) -> str:  # type: ignore[no-untyped-def]
    codes = ",".join(c for c, _ in mk.notes) or "-"
    if mk.kind is MarkKind.CITATION:
        c = mk.citation
        return f"citation {','.join(c.source_ids)} {c.locator or '-'} {c.dialect} {codes}"
    if mk.kind is MarkKind.TEXT:
        return f"text {mk.text.replace(' ', '_')} {codes}"
    return f"{mk.kind.value} - - - {codes}"


DIALECT_CASES = read_fixture_file(FIXTURES / "dialects.md")


@pytest.mark.parametrize("line,title,text,expected", DIALECT_CASES, ids=[c[1] for c in DIALECT_CASES])
def test_dialect_fixtures(line: int, title: str, text: str, expected: str) -> None:
    text = expand(text)
    marks = scan(text)
    described = "\n".join(_describe(m) for m in marks)
    want_marks, _, want_strip = expand(expected).partition("---\n")
    assert described == want_marks.strip("\n"), f"{title} (line {line})"
    assert strip_citations(text) == want_strip
    for mk in marks:
        assert text[mk.start : mk.end] == mk.raw
    assert_no_marker(strip_citations(text), title)


# --------------------------------------------------------------------------- the guide's helper

PIECES = [
    S,
    D,
    E,
    "cite",
    "filecite",
    "navlist",
    "turn0file0",
    "turn1news2",
    "block5",
    "L8",
    "L8-L13",
    "L13-L8",
    " ",
    "  ",
    "\n",
    "x",
    "a b",
    ".",
    "-",
    "_",
    "L8–L13",
    "é",
    "【",
    "】",
    "|",
    "\\ue200",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
families = st.lists(st.sampled_from(["cite", "filecite", "navlist", "", "c"]), min_size=0, max_size=3, unique=True).map(
    tuple
)


def helper_is_correct(text: str, fams: tuple[str, ...]) -> bool:
    """Inputs where the helper neither swallows a marker nor drops a loosely written locator."""
    for body in ref_bodies(text, fams):
        if S in body:
            return False
        parts = [p.strip() for p in body.split(D) if p.strip()]
        if parts:
            rng, canonical = parse_locator(parts[-1])
            if rng is not None and not canonical:
                return False
    return True


@given(texts, families)
def test_extract_matches_the_helper(text: str, fams: tuple[str, ...]) -> None:
    assume(helper_is_correct(text, fams))
    ours = extract_citations(text, families=fams)
    theirs = ref_extract(text, fams)
    assert [c.as_dict() for c in ours] == theirs
    assert strip_citations(text, ours) == ref_strip(text, theirs)


@given(texts, families)
def test_extract_never_crashes_and_offsets_hold(text: str, fams: tuple[str, ...]) -> None:
    for c in extract_citations(text, families=fams):
        assert text[c.start : c.end] == c.raw
        assert c.family in fams


def test_helper_example_from_the_guide() -> None:
    text = f"The on-call handoff process is documented.{S}cite{D}turn0file0{D}L8-L13{E}"
    [c] = extract_citations(text)
    assert (c.family, c.source_ids, c.locator, c.lines) == ("cite", ("turn0file0",), "L8-L13", LineRange(8, 13))
    assert strip_citations(text, [c]) == "The on-call handoff process is documented."


valid_marker = st.builds(
    lambda ids, loc: S + D.join(["cite", *ids, *([loc] if loc else [])]) + E,
    # an id that reads as a locator (L0) is a locator, for the guide's helper too
    st.lists(
        st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True).filter(lambda i: not re.fullmatch(r"L\d+(-L\d+)?", i)),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from([None, "L1", "L8-L13"]),
)
broken_marker = st.sampled_from(
    [f"{S}cite{D}turn0file0 oops ", f"{S}cite{D}", f"{S}cite{D}a b c", f"{S}{S}", f"{S}cite{D}x\n\ny"]
)
junk = st.text(alphabet=st.characters(blacklist_characters=S + D + E), max_size=20)


@given(
    st.lists(st.tuples(junk, broken_marker), max_size=4),
    st.lists(st.tuples(junk, valid_marker), min_size=1, max_size=5),
)
def test_broken_markers_never_swallow_later_ones(broken, valid) -> None:  # type: ignore[no-untyped-def]
    prefix = "".join(j + b for j, b in broken)
    tail = "".join(j + v for j, v in valid)
    text = prefix + tail
    found = [c.raw for c in extract_citations(text)]
    assert found[-len(valid) :] == [v for _, v in valid]
    assert [m.raw for m in scan(text) if m.kind is MarkKind.CITATION][-len(valid) :] == [v for _, v in valid]


def test_helper_swallows_but_we_do_not() -> None:
    text = f"a{S}cite{D}turn0file0 no stop. b{S}cite{D}turn0file1{E}"
    assert ref_extract(text) == []  # the helper's .*? runs into the next marker and rejects both
    assert [c.source_ids for c in extract_citations(text)] == [("turn0file1",)]


def test_loose_locators_are_normalised() -> None:
    for loose in ("L8–L13", " L8 - L13 ", "L8 —L13", "L 8-13"):
        [c] = extract_citations(f"{S}cite{D}turn0file0{D}{loose}{E}")
        assert c.locator == "L8-L13" and c.lines == LineRange(8, 13)


def test_custom_marker_characters_and_families() -> None:
    fmt = CitationFormat(start="⟦", stop="⟧", delimiter="¦", families=("ref",))
    text = "Claim.⟦ref¦doc1¦L2⟧ Other.⟦cite¦doc2⟧"
    [c] = extract_citations(text, families=("ref",), fmt=fmt)
    assert c.source_ids == ("doc1",) and c.locator == "L2"
    kinds = [(m.kind, m.citation.source_ids if m.citation else None) for m in scan(text, fmt=fmt)]
    assert kinds[0] == (MarkKind.CITATION, ("doc1",))
    assert kinds[1][0] is MarkKind.DROPPED  # 'cite' is not a family of this format
    assert strip_citations(text, fmt=fmt) == "Claim. Other."


def test_format_rejects_ambiguous_settings() -> None:
    with pytest.raises(ValueError):
        CitationFormat(start="x", stop="x")
    with pytest.raises(ValueError):
        CitationFormat(families=("ci\ue202te",))


# --------------------------------------------------------------------------- scan, everything


any_text = st.text(
    alphabet=st.sampled_from(list(S + D + E + '\ue203\ue204\ue205\ue206【】†|:[]"\\ue20 citeturn0file1L-8entity')),
    max_size=80,
)


@given(any_text)
def test_scan_marks_are_ordered_exact_and_strip_leaks_nothing(text: str) -> None:
    marks = scan(text)
    pos = 0
    for mk in marks:
        assert mk.start >= pos and mk.end > mk.start
        assert text[mk.start : mk.end] == mk.raw
        pos = mk.end
    out = strip_citations(text)
    assert not re.search(r"[\ue200-\ue206]", out)


@given(st.text(max_size=200))
def test_strip_of_marker_free_text_is_identity(text: str) -> None:
    assume(not re.search(r"[\ue200-\ue206\u3010]|\\|&#|cite|entity", text))
    assert strip_citations(text) == text
    assert scan(text) == []


class CountingStr(str):
    """A str that counts how many characters ``find`` examines."""

    scanned = 0

    def find(self, sub, start=0, end=None):  # type: ignore[no-untyped-def, override]
        r = str.find(self, sub, start, *(() if end is None else (end,)))
        CountingStr.scanned += (len(self) if r == -1 else r) - start
        return r


@pytest.mark.parametrize(
    "unit",
    [f"{S}cite{D}turn0file0 no stop ", f"{S}cite{D}a{E}", f"{D}x ", f"{S}{S}{E}", "【6†L9-L11】", "citeturn0file0 "],
)
def test_scan_work_grows_linearly(unit: str) -> None:
    """Characters examined by the scanner's searches stay proportional to the input."""
    costs = []
    for n in (500, 1000, 2000):
        CountingStr.scanned = 0
        text = CountingStr(unit * n + "tail")
        Scanner(text, CitationFormat()).scan()
        costs.append(CountingStr.scanned)
    assert costs[2] <= 2.2 * costs[1] + 100 and costs[1] <= 2.2 * costs[0] + 100, costs
    assert costs[2] <= 3 * len(unit) * 2000 + 100


# --------------------------------------------------------------------------- real samples


SAMPLES = [json.loads(line) for line in (DATA / "dialect-samples.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("sample", SAMPLES, ids=[s["id"] for s in SAMPLES])
def test_real_samples(sample: dict) -> None:
    text = sample["text"]
    marks = scan(text)
    out = strip_citations(text)
    assert_no_marker(out, sample["id"])
    if sample["variant"] == "markdown_link_no_marker":
        assert marks == [] and out == text
    else:
        assert marks, "every sample carries at least one marker form"
    if sample["variant"] == "pua_filecite_line_locator":
        [c] = [m.citation for m in marks if m.citation]
        assert c.family == "filecite" and c.locator and c.source_ids[0].startswith("turn1file")
