"""``drills review``: the due items listed or asked, the daily limit, ``--forecast``.

May import store, packs, config, safetext, the shared cli modules and ``cli.quiz.due`` (the
quiz that asks the due items); nothing imports it back.
"""
