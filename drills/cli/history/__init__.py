"""``drills history``: list, show, export, import (``history``: the group; ``show``: the text
of list and show).

May import the store, display, safetext, config, tui.pager and the shared cli modules
(errors, store_access, style); no other command group.
"""
