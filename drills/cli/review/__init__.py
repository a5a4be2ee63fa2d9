"""``drills review``: the due items listed or asked, the daily limit, ``--forecast``.

May import store, config, safetext, the shared cli modules and ``cli.quiz.due`` (the quiz
that resolves and asks the due items; imported only once items are due); nothing imports
it back.
"""
