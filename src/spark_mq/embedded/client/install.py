"""Installing the embedded transport in place of IBM's `ibmmq.ibmmqc` C extension.

Runs in the application's process, which then talks to embedded queue managers only.
"""
from __future__ import annotations

import sys


def install() -> None:
    """Make `ibmmq` in this process talk to embedded queue managers. Idempotent.

    Must run before `ibmmq` is first imported: once the package has bound IBM's C extension
    its functions cannot be swapped safely.
    """
    from spark_mq.embedded.client import transport as client
    current = sys.modules.get("ibmmq.ibmmqc")
    if current is client:
        return
    if "ibmmq" in sys.modules:
        raise RuntimeError(
            "ibmmq was imported before spark_mq.embedded.install(); call install() first "
            "(it replaces ibmmq's C extension, which ibmmq binds at import time)")
    sys.modules["ibmmq.ibmmqc"] = client
    sys.modules["ibmmqc"] = client


def installed() -> bool:
    """True when `ibmmq` in this process uses the embedded transport."""
    from spark_mq.embedded.client import transport as client
    return sys.modules.get("ibmmq.ibmmqc") is client
