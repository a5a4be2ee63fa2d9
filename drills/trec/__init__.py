"""TREC qrels and run files: parsing, trec_eval's measure names, evaluation, reports."""
