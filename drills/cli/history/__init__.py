"""``drills history``: list, show, export, import."""
