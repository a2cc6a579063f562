"""The worst answers of a dataset run, kept in bounded memory for the report: ranked by their
contradicted (unsupported) claims, then citations of ids or lines that do not exist, then the
share of checked claims unsupported; ties keep the dataset's order (``q9`` before ``q10``). Besides
the :data:`WORST`, the :data:`WRONG_IDS` worst with an unknown id or invented locator are kept, so
an answer whose only problem is a citation of nothing is listed too.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

__all__ = ["WORST", "WRONG_IDS", "Worst", "score"]

#: how many of the worst answers the report shows (and renders)
WORST = 20
#: how many answers with unknown ids or invented locators are kept besides them
WRONG_IDS = 5

Score = tuple[int, int, float]
#: (score, -order, -seen, result, record): the heap's root is the least bad, the later one of a tie
Entry = tuple[Score, int, int, dict[str, Any], "dict[str, Any] | None"]


def score(metrics: dict[str, Any]) -> Score:
    """How bad an answer is: (contradicted claims, citations of nothing, unsupported share);
    (0, 0, 0.0) for an answer with no problem."""
    support = metrics.get("support_rate")
    wrong = int(metrics.get("unknown_ids", 0)) + int(metrics.get("invented_locators", 0))
    return int(metrics.get("unsupported", 0)), wrong, round(1 - support, 4) if support is not None else 0.0


@dataclass
class Worst:
    """The worst answers seen, in bounded memory; ``order`` is the answer's place in the dataset."""

    kept: list[Entry] = field(default_factory=list)
    wrong_ids: list[Entry] = field(default_factory=list)

    def add(self, result: dict[str, Any], record: dict[str, Any] | None, seen: int) -> None:
        """Consider an answer: ``seen`` counts the results added (unique); its dataset row, when
        the result has one, is its order."""
        s = score(result["metrics"])
        if s == (0, 0, 0.0):
            return
        row = result.get("row")
        order = row if isinstance(row, int) and not isinstance(row, bool) else seen
        _keep(self.kept, (s, -order, -seen, result, record), WORST)
        if s[1]:
            _keep(self.wrong_ids, ((s[1], s[0], s[2]), -order, -seen, result, record), WRONG_IDS)

    def ranked(self) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """Every kept answer once, worst first; equal scores in dataset order."""
        listed: set[int] = set()
        out = []
        both = self.kept + [(score(e[3]["metrics"]), *e[1:]) for e in self.wrong_ids]
        for e in sorted(both, key=_rank):
            if e[2] not in listed:
                listed.add(e[2])
                out.append((e[3], e[4]))
        return out


def _rank(e: Entry) -> tuple[Any, ...]:
    """Worst first; of equal scores, the earlier in the dataset."""
    return (-e[0][0], -e[0][1], -e[0][2], -e[1], -e[2])


def _keep(heap: list[Entry], entry: Entry, most: int) -> None:
    """Keep the ``most`` worst in ``heap`` (a min-heap on score, then on -order: of equal scores
    the later answer goes first)."""
    if len(heap) < most:
        heapq.heappush(heap, entry)
    elif entry[:3] > heap[0][:3]:
        heapq.heapreplace(heap, entry)
