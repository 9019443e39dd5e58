"""How runmqsc lays out what DISPLAY shows (runs in the queue-manager process): the
message line, then the attributes in two 40-character columns indented by three blanks;
`format_display` shows one queue, queue manager or channel (admin/mqsc_apply.py), or one pub/sub
object (admin/pubsub/pubsub_mqsc.py, which changes the message line), as runmqsc does."""
from __future__ import annotations

from collections.abc import Mapping

from spark_mq.embedded.server.core.mqsc_attributes import (
    QMGR_ATTRIBUTES,
    QUEUE_ATTRIBUTES,
    TYPE_SYNONYMS,
    AttributeSpec,
)

_COLUMN = 40


def render(header: str, items: list[str]) -> str:
    """`header`, then `items` (KEYWORD(value) texts) two to a line where they fit."""
    lines = [header]
    pending = list(items)
    while pending:
        left = pending.pop(0)
        if pending and len(left) < _COLUMN:
            lines.append("   " + left.ljust(_COLUMN) + pending.pop(0))
        else:
            lines.append("   " + left)
    return "\n".join(lines)


_DISPLAY_HEADERS = {
    "QLOCAL": ("AMQ8409I: Display Queue details.", "QUEUE"),
    "QALIAS": ("AMQ8409I: Display Queue details.", "QUEUE"),
    "QMODEL": ("AMQ8409I: Display Queue details.", "QUEUE"),
    "QREMOTE": ("AMQ8409I: Display Queue details.", "QUEUE"),
    "CHSTATUS": ("AMQ8417I: Display Channel Status details.", "CHANNEL"),
    "QMGR": ("AMQ8408I: Display Queue Manager details.", "QMNAME"),
    "CHANNEL": ("AMQ8414I: Display Channel details.", "CHANNEL"),
    "CLUSQMGR": ("AMQ8441I: Display Cluster Queue Manager details.", "CLUSQMGR"),
    "QCLUSTER": ("AMQ8409I: Display Queue details.", "QUEUE"),
}


def _display_item(key: str, value: object, specs: Mapping[str, AttributeSpec]) -> str:
    spec = specs.get(key)
    if spec is not None and spec.kind == "flag":
        return str(value)                       # SHARE / NOSHARE print as bare keywords
    if value is True:
        return key
    if spec is not None and spec.keywords:      # e.g. MAXPROPL(-1) prints as NOLIMIT
        value = next((w for w, n in spec.keywords.items() if n == value), value)
    text = str(value)
    return f"{key}({text if text else ' '})"    # MQ shows an empty string as ( )


def format_display(object_type: str, name: str, attributes: dict,
                   specs: Mapping[str, AttributeSpec] | None = None) -> str:
    """Render one object's attributes the way runmqsc's DISPLAY does.

    ``object_type`` is QLOCAL, QALIAS, QMODEL or QMGR (QUEUE uses ``attributes['TYPE']``);
    attributes are listed alphabetically after the name and type. ``specs`` type them (how a
    named int such as KAINT(AUTO) shows) where they are not a queue's or the QMGR's.
    """
    object_type = TYPE_SYNONYMS.get(object_type.upper(), object_type.upper())
    if object_type == "QUEUE":
        object_type = str(attributes.get("TYPE", "QLOCAL"))
    header, name_key = _DISPLAY_HEADERS.get(
        object_type, (f"Display {object_type.title()} details.", object_type))
    items = [f"{name_key}({name})"]
    if name_key == "QUEUE":
        items.append(f"TYPE({object_type})")
    elif name_key == "CHANNEL":   # runmqsc shows a channel's type right after its name
        items.append(f"CHLTYPE({attributes.get('CHLTYPE', 'SVRCONN')})")
    if specs is None:
        specs = QMGR_ATTRIBUTES if object_type == "QMGR" else QUEUE_ATTRIBUTES
    for key in sorted(attributes):
        # the name and type are shown first; a channel's QMNAME is an attribute of its own
        if key not in ("TYPE", "CHLTYPE", name_key) and attributes[key] is not None:
            items.append(_display_item(key, attributes[key], specs))
    return render(header, items)
