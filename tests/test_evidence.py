"""Support checks (CR401–CR406): claims, evidence and verdicts from a fixture file of realistic
answers, each check with a supported and an unsupported variant."""

from __future__ import annotations

import pytest
from conftest import FIXTURES, ROOT, expand
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.utils import read_fixture_file

from citerender import load_sources, registry_from_data
from citerender.model.evidence import support_report

CASES = read_fixture_file(FIXTURES / "evidence.md")
REGISTRIES = {
    "handbook": load_sources(ROOT / "examples" / "handbook" / "answer.sources.json"),
    "agreement": load_sources(ROOT / "examples" / "service-agreement" / "answer.sources.yaml"),
    "zh": load_sources(FIXTURES / "evidence.zh.sources.json"),
}


def _registry(title: str):  # type: ignore[no-untyped-def]
    return next(reg for name, reg in REGISTRIES.items() if f"[{name}]" in title)


@pytest.mark.parametrize("line,title,text,expected", CASES, ids=[c[1] for c in CASES])
def test_evidence_fixture(line: int, title: str, text: str, expected: str) -> None:
    report = support_report(expand(text), _registry(title))
    got = "\n".join(" ".join([c.verdict, *c.codes]) for c in report.claims)
    assert got == expected.strip("\n"), f"{title} (fixture line {line}): {[c.reasons for c in report.claims]}"


_WORD = st.sampled_from(
    [
        "employees",
        "may",
        "must",
        "not",
        "work",
        "remotely",
        "three",
        "30",
        "days",
        "per",
        "week",
        "notice",
        "written",
        "June",
        "1,",
        "2026",
        "approval",
        "manager",
        "“quoted",
        "words”",
        "renewal",
        "unless",
        "no",
        "termination",
        "sixty",
        "(60)",
        "12%",
        "300",
        "EUR",
        "10:00",
        "non-renewal",
        "员工",
        "远程",
        "工作",
        "Straße",
        "café",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(_WORD, min_size=3, max_size=18).map(" ".join), min_size=1, max_size=6), st.data())
def test_a_claim_that_repeats_its_line_is_never_flagged(lines: list[str], data: st.DataObject) -> None:
    """Precision as a property: whatever the words, numbers, negations, modals or quotes of a
    source line, a claim that states the line as written, citing it, raises nothing."""
    registry = registry_from_data({"sources": [{"id": "turn0file0", "lines": lines}]})
    n = data.draw(st.integers(min_value=1, max_value=len(lines)))
    line = lines[n - 1].replace("\ue200", "")
    lead = data.draw(st.sampled_from(["", "According to the policy, ", "In short: "]))
    text = f"{lead}{line}.\ue200cite\ue202turn0file0\ue202L{n}\ue201"
    report = support_report(text, registry)
    assert [c.codes for c in report.claims] == [[]], (text, [c.reasons for c in report.claims])
    assert report.claims[0].verdict in ("supported", "unchecked")


class _CountingScorer:
    """Judges everything supported, counting what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def score(self, claim: str, evidence: str) -> float:
        self.calls.append((claim, evidence))
        return 0.9


@pytest.mark.parametrize("line,title,text,expected", CASES[:12], ids=[c[1] for c in CASES[:12]])
def test_check_with_reports_is_the_three_calls_in_one_parse(line: int, title: str, text: str, expected: str) -> None:
    from citerender.model.check import check, check_with_reports
    from citerender.model.quality import quality_report

    answer, reg = expand(text), _registry(title)
    together = _CountingScorer()
    diags, quality, support = check_with_reports(answer, reg, scorer=together)
    apart = _CountingScorer()
    assert diags == check(answer, reg, scorer=apart)
    assert quality.to_dict() == quality_report(answer, reg).to_dict()
    assert support.to_dict() == support_report(answer, reg, scorer=apart).to_dict()
    assert together.calls and len(apart.calls) == 2 * len(together.calls)  # check --report asked twice


_TIE = """
from citerender import check, registry_from_data
reg = registry_from_data({"sources": [
    {"id": "cited", "lines": ["Quarterly revenue fell sharply in the north."]},
    {"id": "other", "lines": ["Nothing here.", "Renewal contracts require signatures.", "Filler line about weather.",
                              "More filler text entirely.", "Contracts need written approval.", "Closing remarks."]},
]})
answer = "Renewal contracts require written approval.\\ue200cite\\ue202cited\\ue202L1\\ue201\\n"
print([d.message for d in check(answer, reg) if d.code == "CR403"])
"""


def test_the_better_passage_named_is_the_same_on_every_run() -> None:
    """Two lines of one source share the claim's words equally (60% each): the report names the
    first, whatever the interpreter's string hashing (the claim's words are a set, and the search
    used to keep whichever line its iteration met first: L2 or L5 from run to run)."""
    import os
    import subprocess
    import sys

    seen = set()
    for seed in ("0", "1", "2", "4"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _TIE], capture_output=True, text=True, env=env, cwd=ROOT, check=True
        )
        seen.add(done.stdout.strip())
    assert seen == {'["the cited passage shares 0% of the claim\'s words; other L2 shares 60%"]'}
