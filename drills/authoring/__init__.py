"""For pack authors: the pack linter, the slip lint, the starter pack template."""
