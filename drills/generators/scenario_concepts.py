"""The concept step that closes each generated scenario (drills.generators.scenarios): topic,
prompt, model answer and the rubric that grades a free-text answer (drills.grading.concept).

Key point texts are fixed (history refers to them by text). Phrasings (drills.grading.concept.
phrasing): a key point's words in any order within one claim, a wrong belief's in order; ``a|b``
alternatives, ``a_b`` one multi-word alternative, ``w*`` a prefix; a negation matches only a
negated claim. Each example names the key points it makes by index ("013").
"""

from __future__ import annotations

from typing import NamedTuple

from drills.model import Example, KeyPoint, Misconception, Rubric


class Concept(NamedTuple):
    topic: str
    prompt: str
    model_answer: str
    rubric: Rubric

    @property
    def key_points(self) -> tuple[str, ...]:
        return tuple(p.text for p in self.rubric.points)


def _rubric(points: tuple, beliefs: tuple, samples: tuple) -> Rubric:
    """(text, required, accept)..., (id, correction, signals)..., (answer, verdict, "013", ids)..."""
    kps = tuple(KeyPoint(text, required, accept) for text, required, accept in points)
    return Rubric(kps, tuple(Misconception(mid, fix, signals) for mid, fix, signals in beliefs),
                  tuple(Example(answer, verdict, tuple(kps[int(i)].text for i in made), ids)
                        for answer, verdict, made, ids in samples))


# ------------------------------------------------------------------------------ why_idcg
WHY_IDCG = Concept("normalization",
    "Why does NDCG divide DCG by IDCG? What would go wrong if you averaged raw DCG over queries?", """
        DCG's scale depends on the query: how many relevant documents it has, how good they are, and k. A query
        with many highly relevant documents gets a large DCG from any decent ranking; one with a single relevant
        document never scores much. IDCG@k is the best DCG@k any order of the query's judged documents reaches,
        so DCG / IDCG puts every query on one 0-1 scale (1 = the ideal order) and an average weighs queries
        equally instead of letting the relevance-rich ones dominate. The log base cancels too. With nothing
        relevant IDCG = 0 and a convention is needed (drills, scikit-learn, trec_eval: 0; XGBoost: 1).""", _rubric((
        ("IDCG is the best DCG possible for this query (the ideal order)", False, (
            "idcg|dcg|denominator best|max*|highest|larg* possible|achievable|attainable|reachable|obtainable",
            "sort*|order* relevance|grade*|label*|judg*|descending|best_first idcg|ideal|denominator",
            "upper_bound|best_case|best_possible|maximum_possible|best_achievable|max_achievable",
            "dcg ideal|best order*|rank*|sort*|arrangement|permutation",
            "idcg ideal|best|max*|highest|upper_bound|ceiling", "idcg order*|rank*|sort*|arrangement|permutation")),
        ("dividing puts every query on a 0-1 scale where 1 is the ideal ranking", True, (
            "ndcg_=_1|ndcg_of_1|scores_1|score_of_1|gets_1|equals_1|at_most_1|<=_1|capped_at_1|1_=_ideal|1_mean*|"
            "1_for_ideal",
            "fraction|proportion|percent*|share|ratio|relative|normaliz* achievable|possible|ideal|best|max*|"
            "attainable",
            "comparable|compar*|same_scale|common_scale|one_scale|single_scale|same_range quer*|across|between",
            "each|every|all|equal*|same quer* count*|weigh*|matter*|contribut*|say|vote|footing equal*|same",
            "0,1 scale|range|interval|between|bound*|within|ndcg|normaliz*|ratio|score*",
            "per_query|each_query|every_query normaliz*|rescal*|scale*", "quer* independent|agnostic|invariant")),
        ("raw DCG grows with the number and grades of relevant documents: those queries dominate", True, (
            "many_relevant|more_relevant|number_of_relevant|lots_of_relevant|several_relevant|count_of_relevant|"
            "many_highly larg*|big|high|huge|grow*|inflat*|favo*|bias*|weigh*|scale*|increas*|accumulat*|rack*",
            "lots_of_grade*|many_grade*|more_grade*|many_high*|lots_of_high*|more_high*|many_good|lots_of_good "
            "abundan*|larg*|big|high|grow*|inflat*|favo*|weigh*|reward*|score*",
            "dominat*|swamp*|drown*|outweigh*|overwhelm*|skew*|overweight*|overrepresent*|abundan*|richness",
            "one_relevant|single_relevant|few_relevant|fewer_relevant not scor*|reach*|get*|amount*",
            "not dominat*|swamp*|drown*|outweigh*|overwhelm*|skew*|overweight*", "not compar* quer*|across|between",
            "dcg not upper_bound|upper_limit|bound*|limit|ceiling|cap|maximum", "rich|easy|generous|heavy quer*",
            "dcg|scale|range|magnitude depend*|vari*|differ* quer*|per_query",
            "dcg grow*|increas*|scale*|depend* number|grade*|relevance", "bias*|favo*|tilt* toward*|quer*|rich",
            "larg*|high dcg even|mediocre|bad|poor|random|whatever")),
        ("IDCG = 0 when nothing is relevant needs a convention", False, (
            "convention*|edge_case|special_case|xgboost|lightgbm|sklearn|scikit|trec_eval|division_by_zero|"
            "divide_by_zero|dividing_by_zero|0/0|nan|undefined|zerodivision*",
            "idcg_0|idcg_zero convention*|rule|defin*|undefined|nan|library|set|relevance|return*|treat*|case|query|"
            "ndcg_0|ndcg_1", "idcg_=_0|idcg_zero|idcg_=_zero|idcg_becomes_0|idcg_becomes_zero|idcg_equals_0",
            "no relevance quer*|idcg|ndcg|convention|case|defin*|0|zero|score*"))), (
        ("idcg_normalises_list_length",
         "IDCG depends only on the query's judged grades and k, not on how many documents the system returned: it "
         "corrects for how much relevance the query has (a short run still has the same IDCG and a lower DCG).", (
            "idcg depend*|vari*|grow* length|list_length|number_of_documents|number_of_results|documents_returned",
            "return_more_documents|return_more_results|return_fewer_documents|return_fewer_results|return_longer",
            "long_list*|longer_list*|longer_result_list*|long_ranking*|longer_ranking* advantage|unfair*",
            "normaliz*|correct*|adjust*|account*|compensat*|control* length|long*|short*",
            "list*|ranking* different|vari*|unequal size*|sized|length*")),
        ("idcg_removes_discount",
         "The discount stays in both DCG and IDCG: dividing only rescales by the best achievable DCG, so a relevant "
         "document moved down still lowers NDCG.", (
            "remove_discount|remove_position|cancel_discount|cancel_position|cancell_discount|undo_discount|"
            "eliminate_discount|remove_log_discount|cancel_log_discount",
            "normalizes_away|normalize_away|normalised_away|divides_away|divide_away|factors_out|takes_out position*|"
            "discount*|rank*|weight*",
            "discount_cancel*|discounts_cancel*|discount_disappear*|discount_vanish*|position_cancel*|"
            "positions_cancel*", "fraction|share|proportion|percent* relevance found|retriev*",
            "position*|discount* not matter*|count*", "position*|rank*|discount* no longer matter*|count*",
            "only count*|measur* many|number relevance")),
        ("ndcg_comparable_across_datasets",
         "Normalising makes the queries of one test set comparable; NDCG is still not comparable across datasets: "
         "easy queries or shallow judgements inflate it, so 0.8 on one set is not better than 0.7 on another.", (
            "compar*|fair*|same_scale|meaningful* across_dataset*|between_dataset*|across_different_dataset*|"
            "between_different_dataset*|different_dataset*|other_dataset*",
            "compar*|fair*|same_scale across_different|between_different dataset*|data_set*|collection*|benchmark*|"
            "corpora|test_set*|domain*",
            "compar*|fair*|same_scale across_test_set*|across_collection*|across_benchmark*|different_collection*",
            "universal*|absolute_scale|absolute_measure|absolute_quality")),
        ("idcg_from_own_ranking",
         "IDCG comes from the query's judged grades sorted best first and cut at k, not from the system's own "
         "ranking or only what it retrieved: its own order would make every NDCG 1.", (
            "idcg|ideal own_ranking|own_order|own_scores|sorted_by_score*|sorted_by_the_model*|by_model_score*|"
            "by_predicted_score*|model's_own",
            "idcg|ideal retrieved_document*|retrieved_doc*|retrieved_result*|returned_document*|returned_result*|"
            "only_retriev*|retrieved_only"))), (
        ("Raw DCG isn't comparable between queries: one with twenty highly relevant documents racks up a big DCG from "
         "a mediocre ranking and drives the mean. IDCG is the DCG of the perfect ordering of the judged documents, so "
         "DCG/IDCG is the fraction of the achievable score. If nothing is relevant, IDCG is zero: pick a rule.",
         "correct", "0123", ()),
        ("IDCG = max DCG for the query (ideal order). NDCG = DCG/IDCG in [0,1], 1 = ideal. Raw DCG: queries with "
         "many/high-grade relevant docs dominate the mean.", "correct", "012", ()),
        ("We divide by IDCG to normalise NDCG to 0-1, where 1 means a perfect ranking.", "partial", "01", ()),
        ("Dividing by IDCG normalises for the length of the result list, so long and short lists can be compared; NDCG "
         "is then between 0 and 1 and every query weighs the same.", "wrong", "1", ("idcg_normalises_list_length",)),
        ("IDCG is the best DCG any ordering of the judged documents could reach. Dividing by it removes the position "
         "discount, so NDCG is a 0-1 score of whether the relevant documents were found.",
         "wrong", "01", ("idcg_removes_discount",)),
        ("It is not about list length, and it doesn't remove the discount. IDCG is the DCG of the best possible order "
         "of the judged grades, cut at k, so NDCG says what fraction of the achievable DCG the ranking got. Without "
         "it, queries with many highly relevant documents would swamp the average.", "correct", "012", ()))))

# ------------------------------------------------------------------------------ what_is_lost
WHAT_IS_LOST = Concept("binary-vs-graded",
    "What does binarising the labels lose, and when is binary NDCG good enough?", """
        Binarising erases the order among relevant documents: a grade-1 document above a grade-3 one costs
        nothing once both are 1, so the metric no longer rewards putting the best result first, and a ranking
        that buries the best document can look nearly perfect. The threshold decides which mistakes show: a low
        one makes almost everything relevant and NDCG saturates near 1. Binary labels are enough when a result
        either serves the need or not (known-item search, one correct answer, clicks or purchases) or when raters
        cannot agree on finer grades; they are cheaper and more reliable per judgement.""", _rubric((
        ("the order among relevant documents (which grade is higher) is lost", True, (
            "not distinguish*|differentiat*|tell|separate|see|notic*|detect*|captur*|know|reflect* grade*|great|"
            "excellent|good|better|best|highly|level*|degree*",
            "grade*|label* lost|lose|los*|erase*|gone|collapse*|flatten*|discard*|thrown|throw*|merg*|ignor*|"
            "invisible|disappear*",
            "highly|excellent|perfect|great|best marginal*|barely|slightly|somewhat|partially|mildly|weakly|mediocre|"
            "okay|fair",
            "distinction*|differen*|nuance*|granularity|resolution between|among|within relevance|grade*|label*|level*",
            "become_1|becomes_1|count_as_1|counts_as_1|treated_as_1|collapse_to_1|mapped_to_1|turned_into_1",
            "all relevance|1 equal|same|alike|interchangeable|identical|equivalent|count*|become*",
            "los*|lose|lost information|detail|nuance grade*|level*|degree*|relevance_each",
            "3 1 same|equal|indistinguishable|alike|identical|equivalent",
            "order*|rank* among|within|between relevance|grade*")),
        ("putting a low grade above a high grade is no longer penalised", False, ("look* ideal",
            "not penal*|punish*|cost*|hurt*|notic*|detect*|reward*|credit* swap*|above|below|order*|bury*|ahead|"
            "before|flip*|invert*|first|top",
            "lower|worse|marginal*|mediocre|weaker|grade_1 above|ahead|over|before|first larg*|best|better|stronger|"
            "excellent|grade_3|ideal",
            "acceptable|mediocre|marginal*|worse|lower|weaker first|above|ahead|before cost*|free|harmless|unnoticed|"
            "invisible",
            "same|equal|identical score*|ndcg|value|metric reverse*|swap*|flip*|inverted|other_way|opposite",
            "bury*|buri* best|top|ideal|grade_3|excellent|great|highest",
            "mis-order*|misorder*|wrong_order relevance|grade*", "stop*|cease*|fail* reward*|credit*|penaliz*")),
        ("the threshold decides what counts as relevant and can change which system wins", False, ("saturat*",
            "threshold*|bar relevance|grade*|label*|judg*|system*|winner|saturat*|choice|choos*|pick*|matter*|depend*|"
            "decid*|count*|report*|low*|high*|strict*|lenient|generous|>=|>",
            "winner|win*|comparison*|leaderboard|conclusion*|system_ranking flip*|chang*|revers*|swap*|alter*|depend*",
            "system* swap*|flip*|trade*|chang*|revers* place*|order|rank*|winner", ">=|> grade*|relevance",
            "cutoff|cut_point|boundary|line grade*|relevance|draw*|where_to_cut",
            "nearly|almost|practically|virtually every*|everything relevance",
            "ndcg drift*|creep*|toward*|near|close|approach* 1")),
        ("binary is enough when results are simply right or wrong, e.g. known-item search", True, (
            "one_correct|single_correct|one_right|one_good|single_answer|one_answer|single_target|one_relevant|"
            "single_relevant",
            "rater*|judge*|annotator*|assessor*|labeler*|labeller* disagree*|noisy|noise|inconsistent|unreliable",
            "question_answering|qa|factoid|lookup|look-up|fact_check*|spam|fraud|duplicate*|exact_match",
            "yes/no|binary_need|binary_task|binary_outcome|binary_decision|hit_or_miss|pass/fail",
            "rater*|judge*|annotator*|assessor*|labeler*|labeller* not agree*|consistent|reliab*",
            "cheap*|cheaper|faster|easier|reliab* label*|judg*|annotat*|collect*", "only care* relevance|found|hit",
            "known-item|known_document|known_page|navigat*|homepage|home_page", "right|correct wrong|incorrect",
            "noisy|unreliable|inconsistent|subjective grade*|label*|judgment*", "grade* not matter*|add*",
            "click*|purchas*|buy*|conversion*|add_to_cart|booking*"))), (
        ("binary_loses_position",
         "Binary NDCG still discounts by rank: a relevant document at rank 5 earns 1/log2(6) = 0.39, at rank 1 it "
         "earns 1. Only the differences between grades are lost, not the positions.", (
            "loses_discount|lose_discount|lost_discount|loses_the_discount|lose_the_discount|removes_the_discount|"
            "remove_discount|drops_the_discount|loses_positional|lose_positional",
            "count* 1 wherever|regardless_of_position|regardless_of_rank|irrespective_of_position|regardless_of_where",
            "throw_away_the_discount|throw_away_position*|discard_the_discount|ignore_position*|ignore_the_position*",
            "loses_position*|lose_position*|lost_position*|losing_position*|loses_the_position*|lose_the_position*",
            "ndcg becom*|reduc*|turn*|collaps*|degenerat* precision|recall|count*|hit_rate|set_metric|map|ap|mrr",
            "position*|discount* not matter*|count*|appl*")),
        ("threshold_irrelevant",
         "The threshold decides which mistakes count: a low one makes nearly everything relevant (NDCG saturates "
         "near 1), a high one keeps only the best, and two thresholds can order the same systems differently.", (
            "system_ranking|winner|comparison*|conclusion* same|unchanged|stable|preserv*|identical|consistent",
            "not chang*|affect*|flip*|alter* winner|win*|system_ranking|comparison*|conclusion*",
            "whichever|whatever|every threshold same|fine|work*|equivalent|identical",
            "threshold* harmless|detail|cosmetic|irrelevant|unimportant|technicality",
            "threshold* not matter*|chang*|affect*|impact*|important|critical",
            "threshold* give*|yield*|produce*|lead* same|identical",
            "regardless|independent*|irrespective threshold*")),
        ("binary_always_enough",
         "Binary labels throw information away whenever results differ in how useful they are (web or product "
         "search); they are enough when a result is simply right or wrong, or raters cannot agree on grades.", (
            "binary|binariz*|binaris* always|generally enough|sufficient|fine|adequate|good|better|preferable",
            "not lose|los*|lost anything|important|significant|essential", "always binariz*|binaris*|binary",
            "nothing lost|lose|los*"))), (
        ("You lose the ranking among relevant results: once grade 1 and grade 3 are both 'relevant', showing the "
         "mediocre one first costs the same, and a ranking that buries the best page looks nearly perfect. A generous "
         "threshold makes almost everything relevant. Binary is fine for navigational search: right page or not.",
         "correct", "0123", ()),
        ("Lost: the grade order among relevant docs (3 vs 1 count the same). Threshold choice can flip the winner. "
         "Binary OK when relevance is yes/no: known-item, QA, clicks.", "correct", "023", ()),
        ("You lose the grades, so a great document and an okay one look alike.", "partial", "0", ()),
        ("Binarising loses the position discount: binary NDCG just becomes precision, whether relevant documents are "
         "in the top k. It also loses the grades. It's fine for known-item search.",
         "wrong", "03", ("binary_loses_position",)),
        ("You lose the distinction between grade 2 and grade 3, but the threshold doesn't matter much: any threshold "
         "gives the same ranking of systems. Binary is enough for question answering.",
         "wrong", "023", ("threshold_irrelevant",)),
        ("The positions still count, binary NDCG keeps its log discount and is not just precision. What goes is the "
         "difference between grades: all relevant documents look equal, so a grade-1 above a grade-3 isn't penalised. "
         "That is fine when an answer is simply correct or wrong, like known-item search.", "correct", "013", ()))))

# ------------------------------------------------------------------------------ why_lambda
WHY_LAMBDA = Concept("lambdarank", "Why does LambdaRank weight this pair's gradient by |delta NDCG|?", """
        NDCG depends on the scores only through the sorted order: it is flat almost everywhere and jumps when
        two documents swap, so it has no useful gradient. RankNet's pairwise loss gives a smooth gradient (a
        lambda) for every pair with different labels but treats all pairs alike: fixing ranks 9 and 10 counts
        as much as ranks 1 and 2. LambdaRank multiplies each pair's lambda by |delta NDCG| of swapping the two,
        so training pushes hardest where the metric changes most: pairs near the top, pairs with very different
        grades. Equal grades, or a pair entirely below the cut-off, get weight 0. LambdaMART: the same lambdas
        with boosted trees.""", _rubric((
        ("NDCG is flat or jumps as scores change: not differentiable, no useful gradient", True, (
            "piecewise*|plateau*|staircase|step_function|flat|discontinu*|discrete|jump*|almost_everywhere",
            "ndcg gradient*|derivative* zero|0|undefined|useless|vanish*|meaningless|uninformative",
            "not differentiable|differentiat*|smooth|continuous|optimi*|backprop*|descend*",
            "only_through|only_via|changes_only sort*|order*|rank*|swap*|cross*",
            "sort*|argsort|ranking_step not differentiable|differentiat*|smooth",
            "no gradient*|derivative*|signal ndcg|metric|sort*", "nondifferentiable|undifferentiable|nonsmooth")),
        ("the pairwise RankNet gradient of each pair is scaled by |delta NDCG| of swapping it", True, (
            "dndcg|delta_ndcg|ndcg_delta|ndcg_change|change_in_ndcg|ndcg_difference gradient*|lambda*|multipl*|scal*|"
            "weight*|times|pair|pairs",
            "ranknet|pairwise|logistic|sigmoid|smooth gradient*|lambda*|loss|force* multipl*|scal*|weight*|times|x|"
            "reweight*|modulat*", "ranknet dndcg|delta|swap*|chang*|x|times|multipl*|scal*",
            "weight*|scal*|multipl* swap* metric|ndcg", "gradient*|lambda*|update* depend*|reflect* metric")),
        ("swaps near the top and between very different grades get the largest weight", False, ("1,2 9,10",
            "top|head|first_ranks|high_ranks|upper larg*|big*|most|more|strong*|push*|dominat*|weigh*|hard*|matter*|"
            "focus*|emphasi*|priorit*|concentrat*",
            "larger_gap|big_gap|wide_gap|grade_gap|label_gap|gain_gap|grade_differ*|label_differ*|gain_differ*|"
            "relevance_differ*|far_apart",
            "deep*|bottom|tail|far_down barely|little|tiny|small|negligible|hardly|weak*",
            "focus*|concentrat*|priorit*|emphasi* matter*|important|count*|top", "steep* discount top|head|first",
            "ndcg|metric chang* most|larg*|biggest")),
        ("equal grades, or a pair entirely below the cut-off, get weight 0", False, ("both below|beyond|past|outside",
            "equal|same|tied|identical|same_gain|equal_gain grade*|label*|relevance|gain* 0|zero|ignor*|vanish*|"
            "cancel*|skip*|drop*",
            "equal|same|tied|identical grade*|label*|gain* not contribut*|gradient*|weight*|lambda*|push*|count*|"
            "matter*|effect",
            "below|beyond|past|outside|under cutoff|k not contribut*|count*|matter*|gradient*|weight*|effect|chang*",
            "equal|same|tied|identical grade*|label*|relevance get*|receiv*|contribut*|add*",
            "below|beyond|past|outside|under cutoff|k 0|zero|ignor*|vanish*"))), (
        ("lambda_exact_ndcg_gradient",
         "NDCG changes only when two documents swap: its gradient is 0 almost everywhere. |delta NDCG| weights "
         "RankNet's smooth gradient, a designed surrogate (LambdaLoss: it minimises a coarse bound of an NDCG "
         "loss).", (
            "ndcg_derivative_of_ndcg|ndcg_gradient_of_ndcg|delta_ndcg_gradient|delta_ndcg_derivative|dndcg_gradient|"
            "dndcg_derivative",
            "ndcg_differentiable|ndcg_smooth|ndcg_continuous|ndcg_itself_differentiable|ndcg_actually_differentiable",
            "makes_ndcg_differentiable|make_ndcg_differentiable|makes_ndcg_smooth|ndcg_becomes_differentiable",
            "dndcg|delta|ndcg_change exact|true|actual|analytic* gradient*|derivative*",
            "gradient_ascent_ndcg|gradient_descent_ndcg|gradient_ascent_on_ndcg",
            "exact|true|actual|real|analytic* gradient*|derivative* ndcg",
            "optimi*|maximi*|train* ndcg exactly|precisely")),
        ("deep_pairs_weigh_more",
         "The opposite: the log discount is steepest at the top (ranks 1 and 2 differ by 1 - 1/log2(3) = 0.37, "
         "ranks 9 and 10 by 0.012), so swaps near the top get the largest |delta NDCG| and the largest weight.", (
            "focus_training_on_the_bottom|focuses_training_on_the_bottom|focus_training_on_deep*|"
            "focuses_training_on_deep*|focuses_learning_on_the_bottom|concentrates_training_on_the_bottom",
            "focus_bottom|focuses_bottom|focus_tail|focuses_tail|focus_deep*|focuses_deep*|concentrates_bottom|"
            "deep_pairs_matter_more|bottom_pairs_matter_more|deeper_pairs_matter_more",
            "deeper_swaps|deep_swaps|bottom_swaps|deep_pairs|deeper_pairs|bottom_pairs larger_weight|more_weight|"
            "larger_gradient|larger_delta",
            "largest_deep|larger_deep|largest_bottom|larger_bottom|biggest_deep|biggest_bottom|largest_tail|"
            "larger_tail",
            "larger_weight_to_deep*|more_weight_to_deep*|more_weight_to_the_bottom|larger_weight_to_the_bottom",
            "weight*|delta|dndcg|lambda* grow*|increas*|rise* depth|deeper", "9,10 more|larg* 1,2",
            "more_room improv*")),
        ("equal_grades_still_weighted",
         "A pair with equal grades has |delta NDCG| = 0 (swapping them changes nothing) and RankNet gives such a "
         "pair no lambda: only pairs with different labels push.", (
            "equal_labels_matter|equal_grades_matter|same_labels_matter|same_grades_matter|equal_labels_weigh*|"
            "equal_grades_weigh*|same_labels_weigh*|equal_labels_push*|equal_grades_push*",
            "equal|same|tied|identical grade*|label*|relevance still|nonzero|positive weight*|gradient*|push*")),
        ("lambda_weight_regularises",
         "|delta NDCG| is not a regulariser or a stabiliser: it tells each pair's gradient how much the metric "
         "would change, so training spends its effort where NDCG moves most.", (
            "stabiliz*|stabilis* training|gradient*|learning|optimi*", "prevent*|avoid*|reduc*|against overfit*",
            "regulariz*|regularis*", "explod* gradient*"))), (
        ("NDCG only moves when two documents trade places, so as a function of the scores it is piecewise constant and "
         "gives gradient descent nothing to follow. LambdaRank keeps RankNet's smooth pairwise gradient and multiplies "
         "it by how much NDCG would change if the two swapped, which concentrates the learning on the head of the list "
         "and on pairs whose grades are far apart. Pairs with equal labels, or both below the cut-off, contribute "
         "zero.", "correct", "0123", ()),
        ("NDCG not differentiable (step function of scores). lambda_ij = RankNet grad x |dNDCG_ij|: top swaps weigh "
         "most.", "correct", "012", ()),
        ("Because NDCG can't be differentiated, so you need some other signal.", "partial", "0", ()),
        ("Multiplying by |delta NDCG| turns the RankNet gradient into the exact gradient of NDCG, so LambdaRank "
         "optimises NDCG exactly, with the biggest pushes at the top.", "wrong", "12", ("lambda_exact_ndcg_gradient",)),
        ("NDCG is flat between swaps, so each pair's RankNet gradient is scaled by |delta NDCG|. Deep pairs get larger "
         "weight because there is more room to improve at the bottom.", "wrong", "01", ("deep_pairs_weigh_more",)),
        ("NDCG isn't smooth and LambdaRank doesn't optimise it exactly. The |delta NDCG| weight on RankNet's gradient "
         "is largest near the top, not deep in the list.", "correct", "012", ()))))

# ------------------------------------------------------------------------------ what_rr_ignores
WHAT_RR_IGNORES = Concept("ndcg-vs-mrr",
    "RR only looks at the first relevant document. What does it ignore that NDCG and AP see, and when is MRR "
    "still the right metric?", """
        RR = 1 / rank of the first relevant document: it ignores every document after it (how many other
        relevant documents there are, and where) and the grades (a grade-1 document at rank 1 scores like a
        grade-3 one). AP sees the rank of every relevant document; NDCG sees the grades and every rank up to k.
        RR also falls faster with rank (1/r) than NDCG's discount (1/log2(r + 1)). MRR fits tasks where one good
        result is enough: known-item or navigational search, question answering, autocomplete. With binary
        labels NDCG@1 = P@1 = Hit@1 = RR@1.""", _rubric((
        ("RR sees only the first relevant document", False, ("rr|mrr|1/rank|1/r|reciprocal first relevance|hit|match",
            "only first relevance|hit|one|match|result|document|answer", "stop* first relevance|hit|one|match")),
        ("it ignores later relevant documents and the grades", True, ("rest list|ranking|result*|relevance",
            "highly|excellent|perfect|great marginal*|barely|slightly|somewhat|partially|mildly|weakly|okay|fair",
            "not care*|count*|matter*|see*|affect*|chang* after|beyond|past|below|later|rest|follow*|second",
            "after|beyond|past|below|following|behind first relevance|hit|one|match|result|document",
            "later|subsequent|remaining|additional|extra|second|next|other relevance|hit*|match*",
            "many|number|count relevance|hit*", "binary|0/1|threshold*", "grade*|graded|gain*")),
        ("RR falls as 1/r, faster than the 1/log2(r + 1) discount of NDCG", False, (
            "faster|quicker|steep*|harsh*|sharp*|aggressive*|top-heavy|harder rr|mrr|1/r|1/rank|reciprocal|fall*|"
            "drop*|decay*|discount*|declin*|penaliz*", "gentle*|gentler|slower|milder|softer|forgiving ndcg|log*",
            "1/r|1/rank|1/i|reciprocal 1/log|log|log2", "0.63|0.631|0.6309|0.29|0.289|0.2891")),
        ("MRR fits tasks where one good result is enough (known-item search, QA)", True, (
            "one_good|one_correct|one_right|single_answer|one_answer|single_correct|single_target|one_relevant|"
            "only_one_relevant|single_relevant|single_good",
            "question_answering|qa|factoid|autocomplet*|auto-complete|autosuggest|typeahead|query_suggestion|lookup",
            "known-item|known_document|known_page|navigat*|homepage|home_page",
            "ms_marco|msmarco|passage_ranking|chatbot|voice|assistant|entity",
            "user* need*|want*|care* one|single|first", "enough|suffic*|satisf* one|single|first"))), (
        ("rr_counts_all_relevant",
         "RR is 1/rank of the FIRST relevant result only: later relevant results change nothing, and MRR averages "
         "that one number over queries, not over relevant documents.", (
            "counts_later|counts_all|credits_later|credits_all|rewards_later|rewards_all|sees_all|sees_later|"
            "counts_every|rewards_finding_all|rewards_finding_more|rewards_more_relevant",
            "averag*|mean|sum* rr|reciprocal*|1/rank|1/r over_all_relevant|all_relevant|every_relevant|each_relevant|"
            "over_every_relevant",
            "rr_all_relevant|rr_every_relevant|rr_each_relevant|reciprocal_ranks_all_relevant|sum_of_reciprocal_ranks",
            "not ignore_later|ignore_the_later|ignore_subsequent|ignore_other_relevant|ignore_later_relevant")),
        ("rr_uses_grades",
         "RR is binary: graded labels must be thresholded first, and then a marginal hit at rank 1 scores the same "
         "perfect 1 as an excellent one. For grades use NDCG (or ERR).", (
            "mrr_uses|mrr_handles|mrr_weights|mrr_considers|mrr_accounts|mrr_rewards|mrr_reflects|mrr_captures|"
            "mrr_supports grade*|graded|gain*|degree",
            "rr_uses|rr_handles|rr_weights|rr_considers|rr_accounts|rr_rewards|rr_reflects|rr_captures|rr_supports "
            "grade*|graded|gain*|degree",
            "highly|better|larger|top relevance|grade* larger_rr|larger_mrr|more_rr|larger_reciprocal|rr_larger|"
            "mrr_larger", "first hit|relevance grade* scal*|weight*|affect*|multipl*|chang*",
            "grade/rank|gain/rank|rel/rank|grade/r|gain/r|rel/r")),
        ("rr_gentler_than_ndcg",
         "It is the other way round: RR's 1/r falls faster than NDCG's 1/log2(r + 1) (rank 10: 0.1 vs about 0.29), "
         "so RR is the steeper, more top-heavy one.", (
            "1/r_gentler|1/r_slower|1/r_decays_slower|1/r_falls_slower|1/r_decays_more_slowly|rr_decays_more_slowly|"
            "steeper_than_1/r|faster_than_1/r|harsher_than_rr|steeper_than_rr|faster_than_rr|steeper_than_mrr",
            "ndcg_steeper|ndcg_drops_faster|ndcg_falls_faster|ndcg_decays_faster|ndcg_more_top-heavy|ndcg_harsher|"
            "log_steeper|log_discount_steeper|log_discount_faster|ndcg_discount_steeper|ndcg_discount_faster",
            "rr_gentler|rr_slower|rr_milder|rr_softer|rr_more_forgiving|rr_falls_slower|rr_decays_slower|"
            "rr_more_lenient",
            "gentler_than_ndcg|slower_than_ndcg|gentler_than_log|slower_than_log|milder_than_ndcg|softer_than_ndcg")),
        ("mrr_for_many_relevant",
         "The other way round: MRR fits one-answer tasks (navigational, QA, known-item) because it stops at the "
         "first hit; with many relevant, graded results that users scan, NDCG (or MAP) is the metric.", (
            "mrr_better_for_product|mrr_best_for_product|mrr_better_choice_for_product|mrr_better_for_recommend*|"
            "mrr_best_for_recommend*|mrr_better_choice_for_recommend*|mrr_for_product",
            "mrr_better_many|mrr_best_many|mrr_suits_many|mrr_fits_many|mrr_when_multiple|mrr_for_multiple|"
            "mrr_for_several|mrr_good_many",
            "many_relevant|multiple_relevant|several_relevant use_mrr|choose_mrr|prefer_mrr|pick_mrr|mrr_is_better",
            "ndcg_for_navigational|ndcg_for_known-item|ndcg_for_qa|ndcg_for_question_answering|ndcg_for_one_answer",
            "mrr_for_many|mrr_when_many|mrr_for_browsing|mrr_for_recommend*|mrr_for_feed*|mrr_for_product_search"))), (
        ("Reciprocal rank stops at the first hit: relevant results further down are invisible, two more or twenty, and "
         "a barely useful page on top scores like a perfect one. Its 1/r decay is steeper than the log discount of "
         "NDCG. Right for navigational or question-answering queries, where one good result is all users need.",
         "correct", "0123", ()),
        ("Ignores: hits after the first, grades. 1/r vs 1/log2(r+1). Use MRR for known-item / QA.",
         "correct", "123", ()),
        ("RR only looks at the first relevant document and ignores the grades.", "partial", "01", ()),
        ("MRR averages the reciprocal ranks of all relevant documents, so it does see later hits, but it ignores the "
         "grades. Good for question answering.", "wrong", "13", ("rr_counts_all_relevant",)),
        ("RR ignores later relevant documents and is gentler than NDCG, because 1/r decays slower than the log. It "
         "fits known-item search.", "wrong", "123", ("rr_gentler_than_ndcg",)),
        ("Unlike NDCG, RR doesn't use grades or count a second relevant result, and 1/r is not gentler than the log "
         "discount, it is steeper. MRR is right when a single answer is enough, e.g. QA.", "correct", "123", ()))))

CONCEPTS: dict[str, Concept] = {"why_idcg": WHY_IDCG, "what_is_lost": WHAT_IS_LOST, "why_lambda": WHY_LAMBDA,
                               "what_rr_ignores": WHAT_RR_IGNORES}
