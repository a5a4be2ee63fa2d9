"""``drills packs``: list, validate, lint, new, install, update, remove."""
