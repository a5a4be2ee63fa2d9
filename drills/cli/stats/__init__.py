"""``drills stats``: progress, and the class report over exports."""
