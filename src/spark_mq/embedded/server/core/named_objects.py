"""DEFINE, ALTER and DELETE of an object kept as a name and its attributes in a table of its
own (namelists, processes), stored under its kind: the same rules for both, as runmqsc
gives them (AMQ8150E without REPLACE, AMQ8147E for an unknown name or LIKE), and ALTDATE and
ALTTIME set at each change. Runs in the queue-manager process, under its lock."""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from spark_mq.embedded.server.core.state import QueueManagerState


def change(qm: QueueManagerState, table: dict[str, dict[str, Any]], kind: str, verb: str,
           name: str, attrs: Mapping[str, Any], messages: Mapping[str, str],
           defaults: Callable[[], dict[str, Any]], replace: bool = False,
           like: str | None = None,
           finish: Callable[[dict[str, Any]], None] | None = None) -> str:
    """Apply `verb` to `name` in `table`; returns runmqsc's message (`messages` by verb).
    Failures are ValueErrors with runmqsc's text. `finish` checks or completes the values of
    a DEFINE or ALTER before they are kept."""
    existing = table.get(name)
    if verb == "DELETE":
        if existing is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        del table[name]
        qm.store.delete_object(kind, name)
        return messages["DELETE"]
    if verb == "DEFINE":
        if existing is not None and not replace:
            raise ValueError(f"AMQ8150E: IBM MQ object already exists: {name}; use REPLACE.")
        if like is not None and like not in table:
            raise ValueError(f"AMQ8147E: IBM MQ object {like} not found.")
        values = dict(table[like]) if like is not None else defaults()
    elif verb == "ALTER":
        if existing is None:
            raise ValueError(f"AMQ8147E: IBM MQ object {name} not found.")
        values = dict(existing)
    else:
        raise ValueError(f"{verb} is not valid for {kind} (valid: DEFINE, ALTER, DELETE, DISPLAY)")
    values.update(attrs)
    if finish is not None:
        finish(values)
    values["ALTDATE"], values["ALTTIME"] = time.strftime("%Y-%m-%d"), time.strftime("%H.%M.%S")
    table[name] = values
    qm.store.save_object(kind, name, values)
    return messages[verb]
