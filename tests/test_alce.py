"""ALCE's citation recall and precision, rule by rule as princeton-nlp/ALCE's eval.py
(``compute_autoais`` as its ``main()`` calls it) computes them, with a deterministic judge."""

from __future__ import annotations

import re

import pytest

from citerender import CiterenderError
from citerender.evaluate.alce import (
    AlceItem,
    alce_items,
    alce_refs,
    alce_sentences,
    remove_citations,
    score_item,
)
from citerender.evaluate.alce_run import AlceTotals

pytest.importorskip("nltk")

WORD = re.compile(r"[a-z0-9]+")


def words_judge(claim: str, evidence: str) -> bool:
    """Entails when every word of the claim is in the evidence (deterministic, order-free)."""
    return set(WORD.findall(claim.lower())) <= set(WORD.findall(evidence.lower()))


def item(output: str, *docs: tuple[str, str]) -> AlceItem:
    return alce_items([{"question": "q", "output": output, "docs": [{"title": t, "text": x} for t, x in docs]}])[0]


class Counting:
    """A judge that counts its calls and records each premise."""

    def __init__(self, judge=words_judge) -> None:
        self.judge, self.calls = judge, []

    def __call__(self, claim: str, evidence: str) -> bool:
        self.calls.append((claim, evidence))
        return self.judge(claim, evidence)


def test_citations_are_read_as_eval_py_reads_them() -> None:
    assert alce_refs("a [1][2] b [3, 4] c [5-6] d [07]") == [0, 1, 2, 4, 6]
    assert alce_refs("[0] names the last document") == [-1]
    assert remove_citations("Paris is big [1][2].") == "Paris is big."
    assert remove_citations("A [1, 2] b | c [3] |") == "A, 2 b c"  # every " |" goes too


def test_the_first_line_only_and_the_end_token() -> None:
    assert alce_sentences("  One [1]. Two [2].\nThree [3].") == ["One [1].", "Two [2]."]
    assert alce_sentences("Yes [1].<|im_end|>") == ["Yes [1]."]
    assert alce_sentences("\n\n") == []


def test_recall_counts_entailed_sentences_over_all_sentences() -> None:
    docs = (("Sky", "the sky is blue"), ("Grass", "grass is green"))
    s = score_item(item("The sky is blue [1]. Grass is green [1]. Water is wet.", *docs), words_judge)
    assert s.sentences == 3 and s.entailed == 1
    assert s.recall == pytest.approx(1 / 3)
    assert s.precision == pytest.approx(1 / 2)  # two single citations, one entails


def test_no_citation_or_one_past_the_last_document_scores_zero_without_a_judge_call() -> None:
    judge = Counting()
    s = score_item(item("Sky is blue. Sky is blue [3].", ("Sky", "sky is blue"), ("X", "y")), judge)
    assert s.recall == 0 and judge.calls == []
    assert s.citations == 0 and s.precision == 0.0  # no citation counted: precision 0, as eval.py


def test_an_out_of_range_citation_is_judged_before_the_first_three_are_kept() -> None:
    docs = [("D", "sky is blue")] * 3
    judge = Counting()
    s = score_item(item("Sky is blue [1][2][3][9].", *docs), judge)
    assert s.entailed == 0 and judge.calls == []


def test_at_most_three_citations_a_sentence() -> None:
    docs = (("A", "alpha"), ("B", "beta"), ("C", "gamma"), ("D", "sky is blue"))
    judge = Counting()
    s = score_item(item("Sky is blue [1][2][3][4].", *docs), judge)
    assert s.citations == 3 and s.entailed == 0  # the fourth, which supports it, is not read
    assert "sky is blue" not in judge.calls[0][1]


def test_the_premise_is_title_and_text_per_document_joined_by_newlines() -> None:
    judge = Counting()
    score_item(item("Sky is blue [1][2].", ("T1", "sky"), ("T2", "is blue")), judge)
    assert judge.calls[0] == ("Sky is blue.", "Title: T1\nsky\nTitle: T2\nis blue")


def test_zero_names_the_last_document() -> None:
    s = score_item(item("Sky is blue [0].", ("A", "nothing"), ("B", "sky is blue")), words_judge)
    assert s.entailed == 1


def test_precision_a_needless_citation_of_a_supported_sentence_does_not_count() -> None:
    # doc 1 alone entails; doc 2 does not, and doc 1 without doc 2 still does: doc 2 is needless
    s = score_item(item("Sky is blue [1][2].", ("A", "sky is blue"), ("B", "grass")), words_judge)
    assert (s.entailed, s.citations, s.precision) == (1, 2, 0.5)


def test_precision_two_documents_each_needed_both_count() -> None:
    s = score_item(item("Sky is blue [1][2].", ("A", "sky"), ("B", "is blue")), words_judge)
    assert (s.entailed, s.precision) == (1, 1.0)


def test_precision_two_documents_each_enough_both_count() -> None:
    s = score_item(item("Sky is blue [1][2].", ("A", "sky is blue"), ("B", "the sky is blue")), words_judge)
    assert s.precision == 1.0


def test_precision_of_an_unsupported_multi_cited_sentence_counts_nothing() -> None:
    judge = Counting()
    s = score_item(item("Sky is green [1][2].", ("A", "sky is blue"), ("B", "red roses")), judge)
    assert (s.entailed, s.citations, s.precision) == (0, 2, 0.0)
    assert len(judge.calls) == 1  # the joint call only


def test_a_repeated_citation_removes_one_occurrence_as_list_remove_does() -> None:
    # [1][1]: each occurrence judged alone (entails): both count, no exclusion call
    s = score_item(item("Sky is blue [1][1].", ("A", "sky is blue")), words_judge)
    assert (s.citations, s.precision) == (2, 1.0)


def test_aggregates_are_per_item_means_in_percent_over_items_with_a_sentence() -> None:
    docs = (("A", "sky is blue"),)
    scores = [
        score_item(item("Sky is blue [1].", *docs), words_judge),  # rec 1, prec 1
        score_item(item("Sky is blue. Sky is blue [1].", *docs), words_judge),  # rec .5, prec 1
        score_item(item("", *docs), words_judge),  # no sentence: left out
    ]
    totals = AlceTotals()
    for s in scores:
        totals.add(s.to_dict())
    agg = totals.summary()
    assert agg["alce_citation_recall"] == pytest.approx(75.0)
    assert agg["alce_citation_precision"] == pytest.approx(100.0)
    assert agg["items_scored"] == 2


def test_result_files_and_their_data_lists_are_read() -> None:
    rows = [
        {"question": "q1", "output": "A [1].", "docs": [{"title": "t", "text": "a"}]},
        {"question": "q2", "output": "B [1].", "docs": [{"id": "x9", "title": "t", "sent": "b", "text": "ignored"}]},
    ]
    assert alce_items({"args": {"ndoc": 1}, "data": rows}) == alce_items(rows)
    items = alce_items(rows)
    assert items[1].docs == (("t", "b"),)  # QA-extracted documents: their 'sent'
    with pytest.raises(CiterenderError, match="not an ALCE result file"):
        alce_items({"args": {}})
    with pytest.raises(CiterenderError, match="no 'output'"):
        alce_items([{"question": "q"}])


def test_qampari_answers_are_the_sentences_as_eval_py_splits_them() -> None:
    from citerender.evaluate.alce import qampari_sentences

    rows = [{"question": "Which films did X direct?", "output": "Film A [1], Film B [2], Film C.\nmore",
             "docs": [{"title": "t", "text": "which films did x direct film a"}, {"title": "u", "text": "nothing"}]}]  # fmt: skip
    (it,) = alce_items(rows)
    assert qampari_sentences(it.question, it.output) == [
        "Which films did X direct? Film A [1]",
        "Which films did X direct? Film B [2]",
        "Which films did X direct? Film C",
    ]
    s = score_item(it, words_judge, qampari=True)
    assert (s.sentences, s.entailed, s.citations) == (3, 1, 2)
    assert s.recall == pytest.approx(1 / 3) and s.precision == pytest.approx(1 / 2)


def test_a_file_whose_path_names_qampari_is_scored_as_qampari(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from citerender.cli.scorer import load_scorer
    from citerender.evaluate.check_dataset import check_dataset

    rows = [{"question": "Which films did X direct?", "output": "Film A [1], Film B [2], Film C.",
             "docs": [{"title": "t", "text": "which films did x direct film a"}, {"title": "u", "text": "nothing"}]}]  # fmt: skip
    scorer = load_scorer("alce_judge:scorer")
    for name, recall in (("qampari-result.json", 100 / 3), ("asqa-result.json", 0.0)):
        (tmp_path / name).write_text(json.dumps({"args": {}, "data": rows}), encoding="utf-8")
        summary = check_dataset(tmp_path / name, tmp_path / f"{name}.jsonl", scorer=scorer, alce=True).to_dict()
        assert summary["alce"]["alce_citation_recall"] == pytest.approx(recall, abs=1e-3), name
