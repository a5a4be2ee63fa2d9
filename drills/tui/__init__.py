"""Terminal front ends over ``drills.quiz.session``: prompt_toolkit when on a terminal, plain lines otherwise.

``frontend.run`` picks one (``terminal.is_terminal``); both hand every event to
``output.Output``, which records it (store + transcript) before ``render`` draws it.
``interactive`` (prompt_toolkit, with ``keys``, ``capped``, ``codeinput`` and ``warmup``) is
imported only on a terminal, after the first question is up; ``plain`` reads lines;
``pager`` pages tall text; ``chains`` is the mock report's view of scenarios.

May import quiz, grading, coding, engine, answers, model, display, safetext, gate, paths
and config; never cli, store or publish. This file holds nothing: import the modules.
"""
