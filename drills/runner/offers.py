"""What the learner's code can import in the runner, said in one sentence.

The child is ``python -I`` (``process.py``): the standard library and the interpreter's own
site-packages, never the user site (``pip install --user``) nor the current directory. So
what it offers is what is installed in the environment drills runs from (numpy comes with
drills), or, under ``--python PATH`` / ``[code] python``, what that interpreter has. This module looks
there (never importing anything) for the data libraries people reach for, so a
``ModuleNotFoundError`` can say truthfully which of them are there.
"""

from __future__ import annotations

import site
import sys
from importlib.machinery import PathFinder

# The libraries a ranking-metric solution is written with: module name -> the name people know.
LIBRARIES = {"numpy": "numpy", "scipy": "SciPy", "pandas": "pandas", "sklearn": "scikit-learn"}


def _installed(module: str) -> bool:
    """Whether ``module`` is in this interpreter's site-packages (those ``-I`` keeps: the
    environment's own, and the system's for a venv made with --system-site-packages; never
    the user site)."""
    return PathFinder.find_spec(module, site.getsitepackages()) is not None


def offered(python: str | None = None) -> str:
    """One sentence: what the runner's ``python`` (default: drills' own) can import."""
    if python is not None and python != sys.executable:
        return (f"The runner offers what {python} can import (you chose it with --python or "
                "[code] python): its standard library and the packages installed for it "
                f"(`{python} -m pip install NAME`); drills' own environment is not used.")
    have = [name for module, name in LIBRARIES.items() if _installed(module)]
    where = f"drills' own environment ({sys.prefix})"
    if have:
        which = have[0] if len(have) == 1 else ", ".join(have[:-1]) + " and " + have[-1]
        among = f"{which} {'is' if len(have) == 1 else 'are'} installed there"
        missing = [name for name in LIBRARIES.values() if name not in have]
        if missing:
            among += f"; {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not"
    else:
        among = f"none of {', '.join(LIBRARIES.values())} is installed there"
    return (f"The runner offers Python's standard library and the packages installed in "
            f"{where}: {among}. Install a package into that environment to use it (under "
            "pipx: `pipx inject drills NAME`; a `pip install --user` package is not seen), "
            "or run your code under your own Python 3.10+ with its own libraries: "
            "`drills code check FILE --question ID --python PATH`, or `[code] python = "
            "\"PATH\"` in config.toml.")
