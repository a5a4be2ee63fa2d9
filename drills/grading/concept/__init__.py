"""Concept answers graded by meaning: a rubric's key points and wrong beliefs, matched by
phrasings that understand negation, contrast and word order (text, phrasing, grade)."""
