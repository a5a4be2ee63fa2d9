"""Grading one answer: verdicts, tolerance and narrowing, diagnosis, slips, key points, reveal."""
