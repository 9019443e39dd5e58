"""Message properties in the queue manager: their size limit at put, their form at get.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Message
handles themselves live in the application's process (client/message_handles.py); a put
sends the handle's properties along, a get sends them back. Here the queue manager checks
MAXPROPL when a message is put and, when it is got, lets PROPCTL and the get options
decide whether the properties go to the getter's handle, into an MQRFH2 in front of the
data, or nowhere.
"""
from __future__ import annotations

from spark_mq.embedded.server.errors import MQError
from spark_mq.embedded.server.queues import I_CCSID, I_ENCODING, I_FORMAT, AliasQueue, LocalQueue
from spark_mq.embedded.server.state import Handle, QueueManagerState
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC

_UTF8 = 1208  # the CCSID of an MQRFH2 the queue manager builds


def check_properties(qm: QueueManagerState, props: list) -> None:
    """MAXPROPL: the properties of one put, measured as MQ measures them."""
    limit = qm.attrs["MAXPROPL"]
    if limit >= 0:
        size = props_mod.properties_length([props_mod.Property(*p) for p in props])
        if size > limit:
            raise MQError(CMQC.MQRC_PROPERTIES_TOO_BIG)


def properties_for_getter(qm: QueueManagerState, queue: LocalQueue, handle: Handle,
                          props: list | None, md: list, body: bytes, options: int,
                          has_handle: bool) -> tuple[list | None, bytes]:
    """PROPCTL and the get options decide: properties to the handle, into an MQRFH2, or dropped.

    Returns (properties for the getter's message handle, data); md is updated in place when
    an MQRFH2 is put in front of the data."""
    if options & CMQC.MQGMO_PROPERTIES_IN_HANDLE and not has_handle:
        raise MQError(CMQC.MQRC_HMSG_ERROR)
    if not props:
        return None, body
    propctl = queue.attrs["PROPCTL"]
    definition = qm.queues.get(handle.name)
    if isinstance(definition, AliasQueue):
        propctl = definition.attrs.get("PROPCTL", propctl)
    if options & CMQC.MQGMO_NO_PROPERTIES or propctl == "NONE":
        return None, body
    force = options & CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 or propctl == "FORCE"
    if has_handle and not force:
        return props, body
    if propctl == "COMPAT" and not force and not any(_brings_rfh2(p[0]) for p in props):
        # MQ's COMPAT: only an mcd., jms., usr. or mqext. property makes an MQRFH2; others
        # alone (a publication's MQTopicString) are dropped
        return None, body
    rfh2 = props_mod.encode_rfh2([props_mod.Property(*p) for p in props],
                                 md[I_ENCODING], md[I_CCSID], md[I_FORMAT])
    md[I_FORMAT] = CMQC.MQFMT_RF_HEADER_2
    md[I_ENCODING] = CMQC.MQENC_NATIVE
    md[I_CCSID] = _UTF8
    return None, rfh2 + body


_COMPAT_FOLDERS = frozenset({"mcd", "jms", "usr", "mqext"})


def _brings_rfh2(name: str) -> bool:
    found = props_mod.location(name)
    return found is not None and found[0] in _COMPAT_FOLDERS
