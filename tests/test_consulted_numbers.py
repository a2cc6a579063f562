"""Every source listed has a number of its own: sources consulted, not cited, are numbered after
every reference, whatever the order of consulted and ``"listed": "cited"`` sources."""

from __future__ import annotations

from itertools import permutations

import pytest

from citerender import Source
from citerender.rendering.exports.json import to_json_data
from citerender.rendering.exports.parsed import parse_answer
from citerender.sources.model import Registry

SOURCES = [
    Source(id="a", title="A", url="https://a.example/"),
    Source(id="b", title="B", url="https://b.example/"),
    Source(id="c", title="C", url="https://c.example/", meta={"listed": "cited"}),
    Source(id="d", title="D", url="https://d.example/"),
    Source(id="e", title="E", url="https://e.example/", meta={"listed": "cited"}),
]


@pytest.mark.parametrize("order", list(permutations(range(len(SOURCES))))[::7])
def test_numbers_are_unique_across_sources_and_consulted(order: tuple[int, ...]) -> None:
    reg = Registry([SOURCES[i] for i in order])
    data = to_json_data(parse_answer("Claim.\ue200cite\ue202a\ue201", reg, consulted=True))
    numbers = [r["number"] for r in data["bibliography"]] + [r["number"] for r in data["consulted"]]
    assert sorted(numbers) == list(range(1, len(numbers) + 1)), numbers
    assert {r["id"] for r in data["bibliography"]} == {"a", "c", "e"}
    assert {r["id"] for r in data["consulted"]} == {"b", "d"}
