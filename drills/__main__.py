from __future__ import annotations

from drills.cli import main

if __name__ == "__main__":
    main()
