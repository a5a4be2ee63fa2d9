"""The concept grader (drills.grading.concept): negation, contrast, word order, plurals and
the field's abbreviations, the verdict rules, evidence, and bounded work on any text.

The rubric here is written for the tests; expected verdicts are what an interviewer would
say about each answer, not what the grader happened to print."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from drills.grading.concept.grade import VERDICTS, grade_concept
from drills.grading.concept.phrasing import compile_phrasing, find, ignored_words
from drills.grading.concept.text import stem, tokens
from drills.model import KeyPoint, Misconception, Rubric

RUBRIC = Rubric(
    points=(
        KeyPoint("IDCG is the DCG of the ideal order", True,
                 ("idcg best|ideal|max*|highest dcg", "idcg ideal|perfect|best order|ordering|ranking")),
        KeyPoint("dividing puts queries on one 0-1 scale", True,
                 ("0-1|[0,1]|0_to_1 scale|range", "comparable across queries", "queries comparable")),
        KeyPoint("the log base cancels", False, ("base cancel*", "base not matter")),
    ),
    misconceptions=(
        Misconception("idcg_is_list_length", "IDCG is the DCG of the ideal order, not a length.",
                      ("idcg depend* list|result length|size", "idcg number|count documents",
                       "normaliz* length|size list")),
        Misconception("ndcg_monotone_in_k", "NDCG@k is not monotone in k: IDCG@k grows too.",
                      ("ndcg monoton*|non-decreasing k", "ndcg always grows|increases k")),
        Misconception("mrr_uses_grades", "MRR is binary: the grade of the first hit does not count.",
                      ("mrr|rr use*|uses|rewards grade*",)),
    ))


def grade(text: str):
    return grade_concept(RUBRIC, text)


def test_a_right_answer_is_correct_with_the_words_that_made_each_point():
    g = grade("IDCG is the DCG of the perfect ordering, so dividing makes queries comparable "
              "on a 0-1 scale.")
    assert g.verdict == "correct" and g.misconceptions == ()
    made = {p.text: p.evidence for p in g.made}
    assert set(made) == {"IDCG is the DCG of the ideal order", "dividing puts queries on one 0-1 scale"}
    assert all(e and e.lower() in ("IDCG is the DCG of the perfect ordering, so dividing makes queries "
                                   "comparable on a 0-1 scale.").lower() for e in made.values())


def test_a_required_point_missing_is_partial_and_nothing_relevant_is_wrong():
    assert grade("IDCG is the best possible DCG for the query.").verdict == "partial"
    nothing = grade("You should use click logs and ask the product manager.")
    assert nothing.verdict == "wrong" and nothing.misconceptions == () and not nothing.made


def test_a_wrong_belief_is_wrong_even_with_every_required_point():
    g = grade("IDCG is the DCG of the ideal order and makes queries comparable on a 0-1 scale. "
              "IDCG depends on the list length.")
    assert g.verdict == "wrong"
    assert [m.id for m in g.misconceptions] == ["idcg_is_list_length"]
    assert g.misconceptions[0].correction.startswith("IDCG is the DCG")
    assert "list length" in g.misconceptions[0].evidence


def test_negation_it_is_not_because_of_list_length():
    for text in ("IDCG is not about the list length: it is the DCG of the ideal order.",
                 "IDCG doesn't depend on the list length.",
                 "The claim that IDCG depends on the list length is false.",
                 "IDCG never depends on list size."):
        assert grade(text).misconceptions == (), text


def test_contrast_unlike_mrr_is_not_a_claim_about_mrr():
    assert grade("NDCG uses the grades, unlike MRR.").misconceptions == ()
    assert grade("Unlike MRR, NDCG uses grades.").misconceptions == ()
    assert grade("NDCG, unlike MRR, rewards grades.").misconceptions == ()
    assert [m.id for m in grade("MRR uses the grades of the first hit.").misconceptions] == ["mrr_uses_grades"]


def test_word_order_inside_a_claim():
    # the belief's words in its order make the claim; the same words reversed do not
    assert [m.id for m in grade("NDCG is monotone in k.").misconceptions] == ["ndcg_monotone_in_k"]
    assert grade("As k grows, NDCG is not monotone.").misconceptions == ()
    assert grade("k is the cut-off; monotone functions of NDCG keep its order.").misconceptions == ()
    # and a claim ends at a full stop or "but": no phrasing spans two claims
    assert grade("NDCG is one number. Monotone transforms of k are another story.").misconceptions == ()
    assert grade("NDCG changes with k but monotone it is not.").misconceptions == ()


def test_plurals_spellings_and_abbreviations_read_alike():
    assert stem("normalises") == stem("normalized") == stem("normalization")
    assert stem("documents") == stem("docs") == stem("doc")
    assert [t.key for t in tokens("the ideal DCG")] == ["idcg"]
    assert [t.key for t in tokens("mean reciprocal rank")] == ["mrr"]
    g = grade("Ideal discounted cumulative gain is the maximal DCG; queries become comparable.")
    assert g.verdict == "correct"


def test_symbols_written_together_stand_together():
    one_over_r = compile_phrasing("1/r")
    assert find(one_over_r, tokens("the weight is 1 / r")) is not None
    assert find(one_over_r, tokens("NDCG = 1/log2(r + 1)")) is None


def test_a_negated_phrasing_matches_only_a_negated_claim():
    base = compile_phrasing("base not matter")
    assert find(base, tokens("the log base does not matter for NDCG")) is not None
    assert find(base, tokens("the log base does matter")) is None
    assert grade("IDCG is the ideal DCG; the base doesn't matter").made[-1].text == "the log base cancels"


def test_rejections_framed_after_the_claim_or_as_a_mistake():
    for text in ("IDCG depends on the list length, which is false.",
                 "Some say IDCG depends on the list length; that's a myth.",
                 "A common mistake is to think IDCG depends on the list length.",
                 "Common misconception: IDCG depends on the list length"):
        assert grade(text).misconceptions == (), text
    # a rejection ends with its sentence: the next claim is read as stated
    g = grade("A common mistake is to say MRR uses grades. IDCG depends on the list length.")
    assert [m.id for m in g.misconceptions] == ["idcg_is_list_length"]


def test_nothing_at_the_end_of_a_clause_negates_the_clause():
    lost = compile_phrasing("nothing lost|lose*")
    assert find(lost, tokens("Binarising loses nothing, the order is kept")) is not None
    assert find(lost, tokens("Nothing is lost")) is not None
    assert find(compile_phrasing("binariz* lose*"), tokens("binarising loses nothing")) is None
    assert find(compile_phrasing("binariz* lose*"), tokens("binarising loses the grades")) is not None


def test_non_hyphenated_is_a_word_not_a_negation():
    # "non-relevant documents count as 0" affirms the count; nonrelevant reads as irrelevant
    assert [(t.key, t.negated) for t in tokens("non-relevant documents count")] == [
        (stem("irrelevant"), False), (stem("documents"), False), (stem("count"), False)]
    assert find(compile_phrasing("non-relevant count*"), tokens("non relevant docs count as 0")) is not None
    assert find(compile_phrasing("irrelevant count*"), tokens("nonrelevant ones count as zero")) is not None


def test_a_spaced_dash_ends_a_negation_and_greek_letters_are_words():
    assert find(compile_phrasing("base matter*"), tokens("not the gain - the base matters")) is not None
    assert [t.key for t in tokens("λ = 1 → plain")] == ["lambda", "=", "1", "->", "plain"]


def test_evidence_quotes_the_learners_own_words_after_a_contraction():
    text = "It doesn't matter which base you pick; can't change NDCG. IDCG depends on the list length."
    g = grade(text)
    assert g.misconceptions[0].evidence == "IDCG depends on the list length"
    for t in tokens("Don't, can't, won't: NDCG—ideal λ"):
        assert "Don't, can't, won't: NDCG—ideal λ"[t.start:t.end].strip()


def test_abbreviations_and_bare_decimals_do_not_end_a_claim():
    assert len({t.claim for t in tokens("weights 1, .63, .5 e.g. at rank 3, i.e. half")}) == 1
    assert [t.key for t in tokens("discounts 1, .5, .33")][-2:] == ["0.5", "0.33"]
    assert find(compile_phrasing("p = prob stop*"), tokens("p = prob. of stopping")) is not None


def test_negation_scope_ends_where_a_new_verb_phrase_starts():
    changes = compile_phrasing("chang* ndcg")
    assert find(changes, tokens("the offset does not cancel and it changes NDCG")) is not None
    assert find(changes, tokens("it does not change NDCG and DCG")) is None
    assert not any(t.negated for t in tokens("sklearn k=None means the whole list"))


def test_instead_of_covers_its_noun_not_the_verb_after_it():
    same = compile_phrasing("1000 negatives make* sampled metrics equal|exact")
    assert find(same, tokens("1000 negatives instead of 100 makes the sampled metrics exact")) is not None
    assert [t.negated for t in tokens("instead of 100 makes")] == [True, False]


def test_not_that_and_not_because_deny_what_follows():
    assert grade("It's not that NDCG is monotone in k.").misconceptions == ()
    assert grade("IDCG is the ideal DCG, not because of the list length").misconceptions == ()


def test_a_key_point_named_among_the_mistakes_is_made_a_belief_is_not():
    rubric = Rubric(points=(KeyPoint("state the threshold", True, ("threshold*",)),),
                    misconceptions=(Misconception("drop_no_hit", "keep them", ("drop* no-hit|zero",)),))
    g = grade_concept(rubric, "Mistakes: dropping no-hit queries, an unstated threshold.")
    assert g.verdict == "correct" and g.misconceptions == ()


def test_stop_word_alternatives_are_named():
    assert ignored_words("system a|b differ") == ["a"]
    assert ignored_words("monoton*|increas* k") == []


def test_the_grade_is_deterministic_and_its_json_has_the_contract_keys():
    text = "IDCG is the ideal DCG, and IDCG depends on the list length."
    assert grade(text) == grade(text)
    js = grade(text).as_json()
    assert set(js) == {"verdict", "key_points", "misconceptions"}
    assert set(js["key_points"][0]) == {"text", "covered", "required", "evidence"}
    assert js["misconceptions"] == [{"id": "idcg_is_list_length",
                                     "correction": "IDCG is the DCG of the ideal order, not a length."}]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_grades_to_a_verdict(text):
    g = grade(text)
    assert g.verdict in VERDICTS
    assert len(g.points) == 3
    for p in g.points:
        assert p.covered == bool(p.evidence)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from(["IDCG", "not", "ideal", "DCG", "length", ",", ".", "but", "unlike",
                                 "monotone", "NDCG", "k", "MRR", "grades", "uses", "1/r", "0-1",
                                 "scale", "depends", "list", "never", "no"]), max_size=60))
def test_field_words_in_any_order_grade_without_error(words):
    g = grade(" ".join(words))
    assert g.verdict in VERDICTS
    assert all(m.evidence for m in g.misconceptions)


def test_a_huge_answer_is_read_up_to_the_cap():
    g = grade("IDCG depends on the list length. " * 2000)  # 64,000 characters
    assert g.verdict == "wrong"
