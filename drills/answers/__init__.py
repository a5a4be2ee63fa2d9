"""The safe answer parser: typed text to a small exact tree, its value, exactness."""
