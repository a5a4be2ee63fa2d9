"""Generated scenarios' concept steps about LambdaRank and RR: why |delta NDCG|, what RR
ignores (their rubrics; see drills.generators.scenario_concepts)."""

from __future__ import annotations

from drills.generators.scenario_concept_base import Concept
from drills.generators.scenario_concept_base import rubric as _rubric

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
            "optimi*|maximi*|train* ndcg exactly|precisely",
            "directly|exactly optimi*|optimis*|maximi* ndcg|metric",
            "gradient_descent|gradient_ascent|descent|ascent ndcg|metric itself|directly",
            "loss|objective|cost becom*|becomes|equals|turns exactly|precisely|literally ndcg",
            "converg* ndcg-optimal|ndcg_optimal|optimal_ranking|ideal_ranking|best_ndcg|maximum_ndcg")),
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
            "equal|same|tied|identical grade*|label*|relevance still|nonzero|positive weight*|gradient*|push*",
            "equal|same|tied|identical grade*|label*|relevance get*|receiv*|keep* discount_difference|small_weight|nonzero",
            "equal|same|tied label*|grade* pair* still push*|weigh*|contribut*|matter*",
            "swap* equal|same|tied grade*|label* chang* ndcg|dcg",
            "equal|same|tied label*|grade* pairs|pair weight* 1/log*|discount_difference")),
        ("delta_ndcg_discount_only",
         "|delta NDCG| of a swap is |G(l_i) - G(l_j)| x |1/log2(1+i) - 1/log2(1+j)| / IDCG: the gain difference counts "
         "as much as the positions, and equal gains give 0 whatever the ranks.", (
            "dndcg|delta|ndcg_change simply|only|merely|purely difference|gap discount*|positions|1/log*|log*",
            "dndcg|delta|ndcg_change depend* only|solely|purely position*|rank*|discount*|distance",
            "dndcg_=_1/log*|delta_ndcg_=_1/log*|delta_=_1/log*|dndcg_equals_1/log*|delta_ndcg_equals_1/log*",
            "dndcg|delta|ndcg_change ignor* grade*|gain*|label*", "dndcg|delta|ndcg_change not depend* grade*|gain*|label*",
            "only|solely position*|rank*|discount* matter*|count* dndcg|delta")),
        ("lambda_weight_regularises",
         "|delta NDCG| is not a regulariser or a stabiliser: it tells each pair's gradient how much the metric "
         "would change, so training spends its effort where NDCG moves most.", (
            "stabiliz*|stabilis* training|gradient*|learning|optimi*", "prevent*|avoid*|reduc*|against overfit*",
            "regulariz*|regularis*", "explod* gradient*",
            "dndcg|delta act*|acts|works|serves regulariz*|penalty|damp*|learning_rate|step_size",
            "weight* prevent*|avoid* overfit*|instabil*", "normaliz* gradient* size|magnitude|scale"))), (
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
        ("NDCG is piecewise constant in the scores, so LambdaRank scales RankNet's gradient by |delta NDCG|, which "
         "depends only on the two ranks, so swaps near the top get the biggest weight.",
         "wrong", "012", ("delta_ndcg_discount_only",)),
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
            "many|number|count relevance|hit*", "binary|0/1|threshold*", "grade*|graded|gain*",
            "not use*|consider*|look*|see*|account* grade*|graded|gain*", "only first one|hit|relevance count*|matter*",
            "not averag*|sum* all|every relevance")),
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
            "not ignore_later|ignore_the_later|ignore_subsequent|ignore_other_relevant|ignore_later_relevant",
            "sum_of_reciprocal_ranks|sum_of_1/rank|average_of_1/rank|mean_of_1/rank",
            "rr|mrr count*|credit*|reward*|include* all|every|each relevance",
            "more|additional|several relevance document*|results|hits rais*|increas*|improv*|boost* rr|mrr")),
        ("rr_uses_grades",
         "RR is binary: graded labels must be thresholded first, and then a marginal hit at rank 1 scores the same "
         "perfect 1 as an excellent one. For grades use NDCG (or ERR).", (
            "mrr_uses|mrr_handles|mrr_weights|mrr_considers|mrr_accounts|mrr_rewards|mrr_reflects|mrr_captures|"
            "mrr_supports grade*|graded|gain*|degree",
            "rr_uses|rr_handles|rr_weights|rr_considers|rr_accounts|rr_rewards|rr_reflects|rr_captures|rr_supports "
            "grade*|graded|gain*|degree",
            "highly|better|larger|top relevance|grade* larger_rr|larger_mrr|more_rr|larger_reciprocal|rr_larger|"
            "mrr_larger", "first hit|relevance grade* scal*|weight*|affect*|multipl*|chang*",
            "grade/rank|gain/rank|rel/rank|grade/r|gain/r|rel/r",
            "rr|mrr reward*|credit*|prefer*|favor*|favour* better_document*|more_relevance|highly_relevance|higher_grade*",
            "rr|mrr grade-aware|grade-sensitive", "rr|mrr larger|rais*|increas*|improv* grade-3|grade_3|better|best document*|result*",
            "grade-3|grade_3|highly_relevance|better|higher_grade hit|document|result give*|gives|get*|yield* larger|more rr|mrr|"
            "reciprocal",
            "rr_keeps_grade*|rr_keeps_the_grade*|mrr_keeps_grade*|rr_retains_grade*|rr_preserves_grade*|mrr_preserves_grade*")),
        ("rr_gentler_than_ndcg",
         "It is the other way round: RR's 1/r falls faster than NDCG's 1/log2(r + 1) (rank 10: 0.1 vs about 0.29), "
         "so RR is the steeper, more top-heavy one.", (
            "1/r_gentler|1/r_slower|1/r_decays_slower|1/r_falls_slower|1/r_decays_more_slowly|rr_decays_more_slowly|"
            "steeper_than_1/r|faster_than_1/r|harsher_than_rr|steeper_than_rr|faster_than_rr|steeper_than_mrr",
            "ndcg_steeper|ndcg_drops_faster|ndcg_falls_faster|ndcg_decays_faster|ndcg_more_top-heavy|ndcg_harsher|"
            "log_steeper|log_discount_steeper|log_discount_faster|ndcg_discount_steeper|ndcg_discount_faster",
            "rr_gentler|rr_slower|rr_milder|rr_softer|rr_more_forgiving|rr_falls_slower|rr_decays_slower|"
            "rr_more_lenient",
            "gentler_than_ndcg|slower_than_ndcg|gentler_than_log|slower_than_log|milder_than_ndcg|softer_than_ndcg",
            "rr|mrr|1/r gentler|milder|softer|slower|more_forgiving than|vs ndcg|log*",
            "ndcg|log* steeper|harsher|more_top-heavy than|vs rr|mrr|1/r", "log|ndcg discount* falls|drops|decays faster",
            "ndcg lower|below rr|mrr|1/r")),
        ("rr_ignores_rank",
         "RR depends on where the first relevant document is: 1/r, so 1 at rank 1, 1/2 at rank 2, 0.1 at rank 10. What "
         "it ignores is everything after that document and the grades, not the rank.", (
            "rr_ignores_position*|rr_ignores_the_position*|rr_ignores_rank*|mrr_ignores_position*|mrr_ignores_rank*|"
            "mrr_ignores_the_position*",
            "rr|mrr position-independent|position_independent|position-agnostic|rank-agnostic|order-agnostic|"
            "order-insensitive",
            "rr|mrr same|identical wherever|regardless_of_position|regardless_of_rank|regardless_of_where|whatever_rank|"
            "whatever_position",
            "rr|mrr 1|one as_long_as|whenever relevance|hit", "rr|mrr like|same_as|equivalent hit_rate|hitrate|hit@k|success@k",
            "rr|mrr ignor*|disregard* position first relevance|hit")),
        ("mrr_for_many_relevant",
         "The other way round: MRR fits one-answer tasks (navigational, QA, known-item) because it stops at the "
         "first hit; with many relevant, graded results that users scan, NDCG (or MAP) is the metric.", (
            "mrr_better_for_product|mrr_best_for_product|mrr_better_choice_for_product|mrr_better_for_recommend*|"
            "mrr_best_for_recommend*|mrr_better_choice_for_recommend*",
            "mrr_better_many|mrr_best_many|mrr_suits_many|mrr_fits_many|mrr_when_multiple|mrr_for_multiple|"
            "mrr_for_several|mrr_good_many",
            "many_relevant|multiple_relevant|several_relevant use_mrr|choose_mrr|prefer_mrr|pick_mrr",
            "ndcg_for_navigational|ndcg_for_known-item|ndcg_for_qa|ndcg_for_question_answering|ndcg_for_one_answer",
            "mrr|rr better_choice_e-commerce|best_choice_e-commerce|right_choice_e-commerce|better_choice_product*|"
            "right_metric_product*|best_metric_product*|better_metric_product*|right_choice_product*",
            "mrr|rr right_metric_feed*|best_metric_feed*|right_metric_shopping|best_metric_shopping|"
            "right_metric_e-commerce|best_metric_e-commerce|better_choice_shopping|better_choice_feed*",
            "product_search|feeds|recommendation*|e-commerce|ecommerce|shopping|browsing mrr_right|mrr_best|"
            "mrr_better|mrr_ideal|mrr_fine|mrr_enough|mrr_suited|rr_right|rr_fine")),
        ("rr_discount_same_as_ndcg",
         "RR falls as 1/r, faster than NDCG's 1/log2(r + 1): 0.5 vs 0.63 at rank 2, 0.1 vs 0.29 at rank 10. It is "
         "the steeper, more top-heavy curve, not the same one rescaled.", (
            "rr|mrr|1/r|reciprocal fall*|decay*|drop*|discount* same|identical|equivalent ndcg|log*",
            "rr|mrr|1/r same|identical|equivalent discount*|decay|fall|curve ndcg|log*",
            "rr_=_1/log*|rr_log_discount|rr_logarithmic|rr_uses_log*|rr_1/log*|mrr_=_1/log*",
            "1/r_=_1/log*|1/r_equals_1/log*|1/r_same_as_1/log*", "differ* only|merely scale|normaliz*|constant",
            "fall*|decay*|drop* rank same|identical ndcg|log*",
            "only|merely differ* scale|normaliz*|constant"))), (
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
        ("RR only sees the first relevant document: later hits and grades are ignored. Its 1/r falls the same way as "
         "NDCG's log discount, only rescaled. MRR fits known-item search and QA.",
         "wrong", "0123", ("rr_discount_same_as_ndcg",)),
        ("Unlike NDCG, RR doesn't use grades or count a second relevant result, and 1/r is not gentler than the log "
         "discount, it is steeper. MRR is right when a single answer is enough, e.g. QA.", "correct", "123", ()))))
