"""``drills review``: due items, the forecast."""
