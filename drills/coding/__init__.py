"""The coding round's domain: the task, its text, grading a function on hidden cases."""
