"""Generated scenarios' concept steps about NDCG itself: why divide by IDCG, what binarising
loses (their rubrics; see drills.generators.scenario_concepts)."""

from __future__ import annotations

from drills.generators.scenario_concept_base import Concept
from drills.generators.scenario_concept_base import rubric as _rubric

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
            "list*|ranking* different|vari*|unequal size*|sized|length*", "length* list*|ranking*|results",
            "longer|shorter|long|short lists|rankings|result_lists",
            "number|count results|documents|items returned|retrieved|shown|displayed")),
        ("idcg_removes_discount",
         "The discount stays in both DCG and IDCG: dividing only rescales by the best achievable DCG, so a relevant "
         "document moved down still lowers NDCG.", (
            "remove_discount|remove_position|cancel_discount|cancel_position|cancell_discount|undo_discount|"
            "eliminate_discount|remove_log_discount|cancel_log_discount",
            "normalizes_away|normalize_away|normalised_away|divides_away|divide_away position*|"
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
            "universal*|absolute_scale|absolute_measure|absolute_quality",
            "mean* same dataset*|test_set*|collection*|benchmark*|everywhere|universally",
            "compar* numbers|scores|ndcg across|different|other dataset*|benchmark*|papers|collection*",
            "0.8|0.9|0.7 one dataset|test_set|collection|benchmark beat*|better|larger|outperform* 0.7|0.6|0.8|0.5")),
        ("gain_cancels_in_ndcg",
         "The log base cancels in DCG / IDCG, the gain does not: it weighs the grades differently, so linear and "
         "2^rel - 1 gains give different NDCGs for the same ranking (0.868 vs 0.759 on [2, 1, 3, 0]).", (
            "gain* cancel*|cancels", "gain* not matter*|affect*|chang* ndcg|anything|result",
            "ndcg|score not depend*|affect*|chang* gain*|gain_choice|which_gain",
            "same|identical ndcg|result|score* linear|exponent*",
            "base|log gain* cancel*", "same goes|holds|applies|true gain*",
            "ndcg|normaliz* invariant|insensitive|indifferent gain*|gain_choice")),
        ("idcg_from_own_ranking",
         "IDCG comes from the query's judged grades sorted best first and cut at k, not from the system's own "
         "ranking or only what it retrieved: its own order would make every NDCG 1.", (
            "idcg|ideal own_ranking|own_order|own_scores|sorted_by_score*|sorted_by_the_model*|by_model_score*|"
            "by_predicted_score*|model's_own",
            "idcg|ideal retrieved_document*|retrieved_doc*|retrieved_result*|returned_document*|returned_result*|"
            "only_retriev*|retrieved_only",
            "idcg|ideal returned|retrieved|system's|shown document*|results|list|items sort*|sorted|reorder*|rearrang*",
            "idcg|ideal system's|returned|retrieved document*|results|list|ranking|items",
            "best|ideal order*|ordering|arrangement|permutation returned|retrieved|system's|shown document*|results|items"))), (
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
        ("Raw DCG grows with how many highly relevant documents a query has, so those queries would dominate the mean. "
         "IDCG is the best DCG possible, so NDCG is between 0 and 1. Both the log base and the gain cancel in the "
         "ratio, so NDCG is the same whatever gain you use.", "wrong", "012", ("gain_cancels_in_ndcg",)),
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
            "order*|rank* among|within|between relevance|grade*",
            "not cost*|penaliz*|punish*|notic* above|ahead|before|over|swap*|order*|first")),
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
            "count* 1 wherever|regardless_of_position|regardless_of_rank|irrespective_of_position",
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
            "binar*|binary not lose*|los*|cost*|throw* anything",
            "grader*|rater*|annotator*|assessor*|judge* agree* perfectly|always|completely|fully|100%",
            "binary|binariz* label*|judgment*|relevance better|superior|preferable anyway|always|general|regardless")),
        ("binary_ndcg_always_higher",
         "Binarising has no fixed direction: it raises NDCG when the run puts low grades above high ones (that "
         "mistake stops counting), and can lower it when the run had the best grades first but a grade-0 above a "
         "grade-1.", (
            "binariz*|binary always|inevitably|necessarily|systematically|automatically|inherently larger|lower|rais*|"
            "increas*|inflat*|boost*|reduc*|decreas*|deflat*",
            "binariz*|binary ndcg|score always|inevitably|necessarily|systematically larger|lower|rais*|increas*|"
            "inflat*|reduc*|decreas*",
            "binar*|binary ndcg larger|above|exceed* graded|grade* every|all|always|regardless|general|whatever",
"binar*|binary ndcg >= graded|grade*",
            "binary|binariz* ndcg|score never lower|below|decreas*")),
        ("graded_always_better",
         "Graded labels are not always worth it: when a result is simply right or wrong (known-item search, one "
         "correct answer) or raters cannot agree on finer grades, binary labels lose little and are cheaper and more "
         "reliable per judgement.", (
            "binary|binariz* never enough|sufficient|fine|acceptable|ok|okay|adequate",
            "graded|grade* labels|judgments always better|superior|preferable|worth*",
"always keep|use|prefer grade*|graded every|all case*|tasks|time",
            "binary labels|judgments always|inherently worse|inferior",
            "graded|grade* labels|judgments always|necessarily needed|required|necessary"))), (
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
        ("Binarising loses the order among relevant documents: a grade-1 above a grade-3 is no longer penalised. It is "
         "fine for known-item search. And binarised NDCG is always higher than graded NDCG, since those mistakes stop "
         "counting.", "wrong", "013", ("binary_ndcg_always_higher",)),
        ("The positions still count, binary NDCG keeps its log discount and is not just precision. What goes is the "
         "difference between grades: all relevant documents look equal, so a grade-1 above a grade-3 isn't penalised. "
         "That is fine when an answer is simply correct or wrong, like known-item search.", "correct", "013", ()))))
