"""The named object kinds this queue manager has (core/named_objects.py describes one): a
third kind is its `NamedKind` and one more entry here, which MQSC, PCF, MQOPEN, MQINQ and
recovery all read."""
from __future__ import annotations

from spark_mq.embedded.server.core.named_objects import NamedKind
from spark_mq.embedded.server.core.namelist import NAMELIST
from spark_mq.embedded.server.core.process_definitions import PROCESS

#: MQSC object type (and store kind) -> its kind
KINDS: dict[str, NamedKind] = {kind.kind: kind for kind in (NAMELIST, PROCESS)}
#: MQOT_* -> its kind
BY_OBJECT_TYPE: dict[int, NamedKind] = {kind.object_type: kind for kind in KINDS.values()}
