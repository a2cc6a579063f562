"""A generated set for the support checks: the sentences of the CommonMark spec's prose as
sources (one line per sentence, 20 sentences per source), and claims built from them —
supported ones (the sentence as written, with a lead-in, with a trailing clause dropped, with
its numbers spelled as words) and unsupported ones (a number changed, must and may swapped, a
negation added, the wrong source cited). Seeded, so the figures repeat."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from bench.inputs import SPEC_MD

S, D, E = "\ue200", "\ue202", "\ue201"
_WORDS_OF = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}
_WORDS_OF.update({10: "ten", 20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty"})
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?![\w.]|\.\d)")


@dataclass
class Case:
    claim: str  # the claim with its marker
    kind: str  # supported: verbatim, lead-in, clause, words; unsupported: number, modal, negation, source
    supported: bool


def _prose_sentences() -> list[str]:
    """Sentences of the spec's prose paragraphs (no code, examples, headings or lists)."""
    text = SPEC_MD.read_text(encoding="utf-8")
    text = re.sub(r"```````+.*?```````+", "", text, flags=re.S)
    out = []
    for para in text.split("\n\n"):
        if para.startswith(("#", "    ", "-", "*", "|", "<", "[", "`")) or "\n    " in para:
            continue
        flat = " ".join(para.split())
        for s in _SENTENCE.split(flat):
            words = s.split()
            if 8 <= len(words) <= 40 and s.endswith(".") and "`" not in s and "[" not in s and "*" not in s:
                out.append(s)
    return out


def generate(seed: int = 7) -> tuple[list[dict[str, object]], list[Case]]:
    """The sources (registry data) and the cases."""
    rng = random.Random(seed)
    sentences = _prose_sentences()
    per = 20
    sources = [
        {"id": f"turn0file{i // per}", "title": f"Spec part {i // per}", "lines": sentences[i : i + per]}
        for i in range(0, len(sentences) - per + 1, per)
    ]
    cases: list[Case] = []
    for src in sources:
        lines = src["lines"]
        assert isinstance(lines, list)
        for n, line in enumerate(lines, start=1):
            sid = str(src["id"])
            cite = f"{S}cite{D}{sid}{D}L{n}{E}"
            body = line.rstrip(".")
            cases.append(Case(line + cite, "verbatim", True))
            cases.append(Case(f"According to the specification, {body[0].lower()}{body[1:]}.{cite}", "lead-in", True))
            if ", " in body and len(body.rsplit(", ", 1)[0].split()) >= 6:
                cases.append(Case(body.rsplit(", ", 1)[0] + "." + cite, "clause", True))
            numbers = [m for m in _NUMBER.finditer(body) if int(m.group(0)) in _WORDS_OF]
            if numbers:
                m = numbers[0]
                spelled = body[: m.start()] + _WORDS_OF[int(m.group(0))] + body[m.end() :]
                cases.append(Case(spelled + "." + cite, "words", True))
            any_number = list(_NUMBER.finditer(body))
            if any_number:
                m = any_number[0]
                changed = body[: m.start()] + str(int(m.group(0)) + 7) + body[m.end() :]
                cases.append(Case(changed + "." + cite, "number", False))
            modal = re.search(r"\b(must|may)\b", body)
            if modal:
                swapped = "may" if modal.group(1) == "must" else "must"
                cases.append(Case(body[: modal.start()] + swapped + body[modal.end() :] + "." + cite, "modal", False))
            verb = re.search(r"\b(is|are)\b(?! not)", body)
            if verb:
                negated = body[: verb.end()] + " not" + body[verb.end() :]
                cases.append(Case(negated + "." + cite, "negation", False))
            other = rng.choice([s for s in sources if s["id"] != sid])
            cases.append(Case(line + f"{S}cite{D}{other['id']}{E}", "source", False))
    return sources, cases
