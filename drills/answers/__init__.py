"""The safe answer parser: typed text to a small exact tree, its value, exactness.

nodes (the tree) <- digits (its value to N digits) <- parser (text to tree) <- exactness
(is the answer the exact value?). May import: drills.engine only.
"""
