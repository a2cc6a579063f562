"""Benchmark inputs, generated reproducibly (fixed seeds); nothing large is checked in."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC_MD = ROOT / "tests" / "data" / "commonmark-spec.md"
S, D, E = "\ue200", "\ue202", "\ue201"

_WORDS = [
    "the",
    "agreement",
    "policy",
    "notice",
    "renewal",
    "termination",
    "employee",
    "remote",
    "manager",
    "approval",
    "security",
    "network",
    "device",
    "quarterly",
    "revenue",
    "growth",
    "customer",
    "support",
    "latency",
    "storage",
    "backup",
    "retention",
    "audit",
    "contract",
    "pricing",
    "exception",
    "finance",
    "owner",
    "period",
    "annual",
    "written",
    "days",
    "weeks",
    "request",
    "review",
    "process",
    "team",
    "system",
    "release",
    "version",
    "update",
    "schedule",
    "report",
    "data",
    "model",
    "training",
    "evaluation",
    "benchmark",
    "source",
]


@dataclass
class Corpus:
    """An answer with markers, the same text stripped, its footnote and pandoc versions, and sources."""

    marked: str
    stripped: str
    footnoted: str  # the same citations as [^n] footnotes (mdit-py-plugins footnote_plugin)
    pandoc: str  # the same citations as [@id] (pandoc --citeproc)
    sources: list[dict]
    markers: int


def _sources(n: int, rng: random.Random) -> list[dict]:
    out = []
    for i in range(n):
        lines = [
            " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."
            for _ in range(rng.randint(5, 40))
        ]
        out.append(
            {
                "id": f"turn0file{i}",
                "title": f"Document {i}: {' '.join(rng.sample(_WORDS, 3)).title()}",
                "url": f"https://docs{i % 17}.example.com/doc/{i}",
                "updated": f"2026-0{1 + i % 9}-1{i % 10}",
                "lines": lines,
            }
        )
    return out


class _Citer:
    """Writes one citation in the four equivalent notations, numbering footnotes by first use."""

    def __init__(self, sources: list[dict], rng: random.Random) -> None:
        self.sources, self.rng = sources, rng
        self.numbers: dict[str, int] = {}
        self.count = 0

    def __call__(self) -> tuple[str, str, str]:
        rng = self.rng
        picks = rng.sample(self.sources, 2 if rng.random() < 0.3 else 1)
        ids = [p["id"] for p in picks]
        loc = None
        if rng.random() < 0.4:
            n = len(picks[0]["lines"])
            a = rng.randint(1, n)
            b = min(n, a + rng.randint(0, 3))
            loc = f"L{a}" if a == b else f"L{a}-L{b}"
        self.count += 1
        marker = S + D.join(["cite", *ids, *([loc] if loc else [])]) + E
        notes = []
        for i in ids:
            self.numbers.setdefault(i, len(self.numbers) + 1)
            notes.append(f"[^{self.numbers[i]}]")
        pandoc = "[" + "; ".join(f"@{i}" for i in ids) + "]"
        return marker, "".join(notes), pandoc

    def footnote_defs(self) -> str:
        by_id = {s["id"]: s for s in self.sources}
        return (
            "\n\n"
            + "\n".join(f"[^{n}]: {by_id[i]['title']}, <{by_id[i]['url']}>" for i, n in self.numbers.items())
            + "\n"
        )


def _assemble(
    paragraphs: list[list[tuple[str, tuple[str, str, str] | None]]], citer: _Citer, sources: list[dict]
) -> Corpus:
    marked, stripped, foot, pan = [], [], [], []
    for para in paragraphs:
        m = s = f = p = ""
        for text, cite in para:
            m += text
            s += text
            f += text
            p += text
            if cite:
                m += cite[0]
                f += cite[1]
                p += " " + cite[2]
        marked.append(m)
        stripped.append(s)
        foot.append(f)
        pan.append(p)
    return Corpus(
        "".join(marked), "".join(stripped), "".join(foot) + citer.footnote_defs(), "".join(pan), sources, citer.count
    )


def dense(size: int = 1_000_000, *, seed: int = 7, n_sources: int = 200) -> Corpus:
    """An LLM-style answer of ~``size`` characters, a marker after every sentence."""
    rng = random.Random(seed)
    sources = _sources(n_sources, rng)
    citer = _Citer(sources, rng)
    paragraphs: list[list[tuple[str, tuple[str, str, str] | None]]] = []
    total = 0
    while total < size:
        kind = rng.random()
        if kind < 0.08:
            head = "## " + " ".join(rng.sample(_WORDS, 4)).capitalize() + "\n\n"
            paragraphs.append([(head, None)])
            total += len(head)
            continue
        items = []
        bullet = kind < 0.3
        for _ in range(rng.randint(2, 5)):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 22))]
            if rng.random() < 0.2:
                words[rng.randrange(len(words))] = f"**{rng.choice(_WORDS)}**"
            if rng.random() < 0.1:
                words[rng.randrange(len(words))] = f"`{rng.choice(_WORDS)}`"
            sent = ("- " if bullet else "") + " ".join(words).capitalize() + "."
            items.append((sent, citer()))
            items.append(("\n" if bullet else " ", None))
            total += len(sent) + 40
        items.append(("\n" if bullet else "\n\n", None))
        paragraphs.append(items)
    return _assemble(paragraphs, citer, sources)


def chat(
    *, seed: int = 13, size: int = 2_000, markers: int = 8, n_sources: int = 6, sources: list[dict] | None = None
) -> Corpus:
    """A typical chat answer: ~2 KB — a heading, paragraphs and a short list — with ``markers``
    citations spread over its sentences (what a web service renders once per request);
    ``sources``: cite these (many answers over one set of documents) instead of new ones."""
    rng = random.Random(seed)
    sources = _sources(n_sources, rng) if sources is None else sources
    citer = _Citer(sources, rng)
    sentences: list[str] = []
    while sum(len(x) + 2 for x in sentences) < size - 60:
        words = [rng.choice(_WORDS) for _ in range(rng.randint(9, 18))]
        if rng.random() < 0.15:
            words[rng.randrange(len(words))] = f"**{rng.choice(_WORDS)}**"
        if rng.random() < 0.1:
            words[rng.randrange(len(words))] = f"`{rng.choice(_WORDS)}`"
        sentences.append(" ".join(words).capitalize() + ".")
    cited = set(rng.sample(range(len(sentences)), markers))
    paragraphs: list[list[tuple[str, tuple[str, str, str] | None]]] = [
        [("## " + " ".join(rng.sample(_WORDS, 3)).capitalize() + "\n\n", None)]
    ]
    k = 0
    while k < len(sentences):
        bullet = len(paragraphs) == 3  # the third block is a short list
        take = rng.randint(2, 4)
        items: list[tuple[str, tuple[str, str, str] | None]] = []
        for i in range(k, min(k + take, len(sentences))):
            items.append((("- " if bullet else "") + sentences[i], citer() if i in cited else None))
            items.append(("\n" if bullet else " ", None))
        items.append(("\n" if bullet else "\n\n", None))
        paragraphs.append(items)
        k += take
    return _assemble(paragraphs, citer, sources)


_SENTENCE_END = re.compile(r"(?<=[A-Za-z0-9)\]\"'*_`])\.(?=\s|$)")


def spec(*, seed: int = 11, share: float = 0.6, n_sources: int = 60) -> Corpus:
    """The CommonMark spec with a marker after ~60% of prose sentences (none inside code)."""
    rng = random.Random(seed)
    sources = _sources(n_sources, rng)
    citer = _Citer(sources, rng)
    paragraphs: list[list[tuple[str, tuple[str, str, str] | None]]] = []
    fence: str | None = None
    for line in SPEC_MD.read_text(encoding="utf-8").splitlines(keepends=True):
        stripped = line.lstrip()
        m = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and m:
            fence = m.group(1)
            paragraphs.append([(line, None)])
            continue
        if fence is not None:
            if (
                stripped.startswith(fence)
                and stripped.strip() == stripped[: len(stripped.rstrip())].strip()
                and set(stripped.strip()) == {fence[0]}
            ):
                fence = None
            paragraphs.append([(line, None)])
            continue
        if line.startswith(("    ", "\t", "<", "|", "[")) or line.count("`") % 2:
            paragraphs.append([(line, None)])
            continue
        parts: list[tuple[str, tuple[str, str, str] | None]] = []
        pos = 0
        for sm in _SENTENCE_END.finditer(line):
            cut = sm.end()
            if line.count("`", 0, cut) % 2 or line.count("[", 0, cut) != line.count("]", 0, cut):
                continue  # inside a code span or link text
            cite = citer() if rng.random() < share else None
            parts.append((line[pos:cut], cite))
            pos = cut
        parts.append((line[pos:], None))
        paragraphs.append(parts)
    return _assemble(paragraphs, citer, sources)


def with_markers(size: int, markers: int, *, seed: int = 3) -> str:
    """Plain text of ``size`` characters holding ``markers`` canonical markers (extract/strip)."""
    rng = random.Random(seed)
    per = size // markers
    chunks = []
    for i in range(markers):
        m = S + D.join(["cite", f"turn0file{rng.randrange(200)}", *(["L3-L9"] if i % 3 == 0 else [])]) + E
        filler = " ".join(rng.choice(_WORDS) for _ in range(max(1, (per - len(m)) // 7)))
        chunks.append(filler[: max(0, per - len(m) - 1)] + "." + m)
    return "".join(chunks)


def many(root: Path, n: int = 1000, *, seed: int = 5) -> Path:
    """``n`` small answers (2–5 KB each) with front-matter sources, for the build path."""
    import json

    rng = random.Random(seed)
    src = root / "answers"
    sources = _sources(40, rng)
    (src).mkdir(parents=True, exist_ok=True)
    (src / "shared.sources.json").write_text(json.dumps({"sources": sources}), encoding="utf-8")
    for i in range(n):
        size = rng.randint(2000, 5000)
        c = dense(size, seed=seed * 100_000 + i, n_sources=40)
        sub = src / f"topic{i % 20:02}"
        sub.mkdir(exist_ok=True)
        (sub / f"answer{i:04}.md").write_text(
            f"---\nsources: ../shared.sources.json\n---\n{c.marked}", encoding="utf-8"
        )
    return src
