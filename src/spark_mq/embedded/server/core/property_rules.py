"""Message properties in the queue manager: their size limit at put, their form at get.

Runs in the queue-manager process, under the queue manager's lock (see qmgr.py). Message
handles themselves live in the application's process (client/message_handles.py); a put
sends the handle's properties along, a get sends them back. Here the queue manager checks
MAXPROPL when a message is put and, when it is got, lets PROPCTL and the get options
decide whether the properties go to the getter's handle, into an MQRFH2 in front of the
data, or nowhere.

An application may also put its properties itself, as an MQRFH2 in the data (a JMS sender,
IBM's samples). The message is stored as it was put; at get time the property folders of
the leading MQRFH2s go to a getter's message handle and leave the data, as IBM MQ does
("if the message on the queue contained properties in the message data these are removed
from the message data", MsgHandle q096760_; an MQRFH2 that also holds other folders keeps
them, "stripped of any message properties", PROPCTL q008230_). A getter without a handle
gets the data as put (PROPCTL NONE and MQGMO_NO_PROPERTIES: without those folders), and
PROPCTL V6COMPAT always gives the data as put. PROPCTL NONE only concerns a getter without a
handle: one with a handle gets the properties in it, as with ALL and COMPAT.
"""
from __future__ import annotations

import re
import struct

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.queue_objects import I_CCSID, I_ENCODING, I_FORMAT, AliasQueue, LocalQueue
from spark_mq.embedded.server.core.state import Handle, QueueManagerState
from spark_mq.mqi import codepages
from spark_mq.mqi import properties as props_mod
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import RFH2

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
    an MQRFH2 is put in front of the data or taken from it."""
    if options & CMQC.MQGMO_PROPERTIES_IN_HANDLE and not has_handle:
        raise MQError(CMQC.MQRC_HMSG_ERROR)
    propctl = queue.attrs["PROPCTL"]
    definition = qm.queues.get(handle.name)
    if isinstance(definition, AliasQueue):
        propctl = definition.attrs.get("PROPCTL", propctl)
    force = options & CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 or propctl == "FORCE"
    # PROPCTL NONE, like ALL and COMPAT, yields to a handle ("if a message handle is supplied
    # then the behavior is to return the properties in the message handle", q103350_): IBM's
    # OpenTelemetry instrumentation relies on it to read traceparent from such a queue
    dropped = options & CMQC.MQGMO_NO_PROPERTIES or (propctl == "NONE" and not has_handle)
    to_handle = has_handle and not force and not dropped
    if (to_handle or dropped) and propctl != "V6COMPAT" and md[I_FORMAT] == CMQC.MQFMT_RF_HEADER_2:
        from_body, body = _take_rfh2_properties(md, body)
        if to_handle and from_body:
            props = (props or []) + from_body
    if not props or dropped:
        return None, body
    if to_handle:
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


# the folders MQ reads message properties from (those encode_rfh2 writes); others (psc, an
# application's own) are name/value data that stays in the MQRFH2
_PROPERTY_FOLDERS = frozenset({"mcd", "jms", "mqps", "mqpse", "mqext", "usr"})
_FOLDER_NAME = re.compile(r"\s*<([^\s<>/]+)")
_INT_ORDER = {CMQC.MQENC_INTEGER_NORMAL: ">", CMQC.MQENC_INTEGER_REVERSED: "<"}


def _take_rfh2_properties(md: list, body: bytes) -> tuple[list, bytes]:
    """The properties in the property folders of the MQRFH2s at the front of the data, and the
    data without them: an MQRFH2 of property folders only goes (md then describes what
    followed it), one that also holds other folders stays with those. Data that is not a
    well-formed MQRFH2 is left as it is."""
    found: list = []
    while md[I_FORMAT] == CMQC.MQFMT_RF_HEADER_2:
        parsed = _rfh2_folders(body, md[I_ENCODING])
        if parsed is None:
            break
        fields, order, folders = parsed
        kept = [raw for name, raw in folders if name not in _PROPERTY_FOLDERS]
        taken = [raw for name, raw in folders if name in _PROPERTY_FOLDERS]
        if not taken:
            break
        try:
            decoded = props_mod.decode_rfh2(_rfh2_with(fields, order, taken))
        except props_mod.PropertyError:
            break  # not properties MQ could read either: the data stays as it was put
        found.extend([p.name, p.type, p.value] for p in decoded.properties)
        rest = body[fields["StrucLength"]:]
        if kept:
            return found, _rfh2_with(fields, order, kept) + rest
        md[I_ENCODING], md[I_CCSID], md[I_FORMAT] = (
            fields["Encoding"], fields["CodedCharSetId"], fields["Format"])
        body = rest
    return found, body


def _rfh2_folders(data: bytes, encoding: int) -> tuple[dict, str, list[tuple[str, bytes]]] | None:
    """An MQRFH2's fixed fields, byte order, and (folder name, NameValueLength + NameValueData)
    of each folder; None when the data does not start with a well-formed one."""
    order = _INT_ORDER.get(encoding & CMQC.MQENC_INTEGER_MASK)
    if order is None or len(data) < RFH2.size:
        return None
    fields = dict(zip(RFH2.names, struct.unpack_from(order + RFH2.struct.format, data)))
    length = fields["StrucLength"]
    if (fields["StrucId"] != CMQC.MQRFH_STRUC_ID or fields["Version"] != CMQC.MQRFH_VERSION_2
            or not RFH2.size <= length <= len(data)):
        return None
    folders, pos = [], RFH2.size
    while pos < length:
        if pos + 4 > length:
            return None
        (size,) = struct.unpack_from(order + "i", data, pos)
        if size < 0 or pos + 4 + size > length:
            return None
        text = codepages.decode_text(data[pos + 4:pos + 4 + size], fields["NameValueCCSID"] or _UTF8,
                                     encoding)
        match = _FOLDER_NAME.match(text or "")
        folders.append((match.group(1) if match else "", data[pos:pos + 4 + size]))
        pos += 4 + size
    return fields, order, folders


def _rfh2_with(fields: dict, order: str, folders: list[bytes]) -> bytes:
    """The MQRFH2 `fields` describe, holding just `folders`."""
    header = dict(fields, StrucLength=RFH2.size + sum(len(raw) for raw in folders))
    return struct.pack(order + RFH2.struct.format, *header.values()) + b"".join(folders)


_COMPAT_FOLDERS = frozenset({"mcd", "jms", "usr", "mqext"})


def _brings_rfh2(name: str) -> bool:
    found = props_mod.location(name)
    return found is not None and found[0] in _COMPAT_FOLDERS
