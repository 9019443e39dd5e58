"""A hint for a plain ibmmq program that runs where IBM's MQ client is not installed.

IBM's `ibmmq` package loads its C extension `ibmmq.ibmmqc`, which needs IBM MQ's client
library (libmqm_r.so), and when that fails tries a top-level `ibmmqc`; without either the
program ends with "No module named 'ibmmqc'" and no word about why. Where this package is
installed, the embedded queue manager is the likely partner, and `spark_mq.embedded.install()`
before `import ibmmq` is what the program forgot.

The package ships `spark-mq-ibmmqc-hint.pth` (setup.py), which Python runs at start-up:
it loads this file by itself (not the spark_mq package, whose import must wait for the
program) and calls `activate`, which appends a finder to the end of sys.meta_path. The finder answers
only for the top-level module `ibmmqc`, and only after every other finder found nothing: it
raises ModuleNotFoundError with the hint. So it is inert where IBM's client is installed
(`from . import ibmmqc` succeeds and `ibmmqc` is never looked for) and after
`spark_mq.embedded.install()` (the module is in sys.modules). It imports nothing and costs
one list append at start-up.
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

HINTED = "ibmmqc"


class IbmmqcHint:
    """The last meta-path finder: the hint instead of a bare "No module named 'ibmmqc'"."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None, target: Any = None) -> None:
        if name != HINTED:
            return None
        # ibmmq tries `import ibmmqc` while handling its own extension's ImportError
        cause = sys.exc_info()[1]
        why = f" (ibmmq.ibmmqc: {cause})" if cause is not None else ""
        raise ModuleNotFoundError(
            f"No module named 'ibmmqc': ibmmq's C extension did not load{why}. For spark-mq's "
            "embedded queue manager, call spark_mq.embedded.install() before `import ibmmq`; "
            "for a real IBM MQ, install IBM MQ's client (the MQ redistributable client, "
            "libmqm_r.so, found through LD_LIBRARY_PATH)", name=name)


def activate() -> None:
    """Add the finder once (the .pth runs again in a process that re-reads site)."""
    if not any(isinstance(finder, IbmmqcHint) for finder in sys.meta_path):
        sys.meta_path.append(IbmmqcHint())
