"""The packs in other shapes: printable worksheets and Anki decks."""
