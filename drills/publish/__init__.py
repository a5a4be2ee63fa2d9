"""The packs in other shapes: printable worksheets (``worksheet``: plain text or Markdown, with an
answer key) and Anki decks (``anki``; genanki is imported only when a deck is written).

Pure presentation over questions: may import engine, answers, model, grading, coding,
generators, quiz (the planner), safetext and display (``Style`` for wrapping); never tui,
store or cli.
"""
