"""Running a quiz: ``drills practice`` (``practice``), ``drills mock`` (``mock``), the quiz of
``drills review`` (``due``: its keys resolved and asked), ``drills code`` (``code``), and what
they share: the options and plan (``flow``), one session run and recorded (``run``,
``recorder``), the code grader (``code_grader``).

May import tui, quiz, store, packs, grading, coding, runner, model, display, safetext and
the shared cli modules; never another command group (review calls into ``due``, not back).
"""
