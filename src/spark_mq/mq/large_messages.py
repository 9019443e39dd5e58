"""The reference/data convention for large payloads that carry message properties.

Why: IBM MQ segments a message larger than MAXMSGL only safely when it has no properties;
with properties the first segment carries the MQRFH2 and outgrows MAXMSGL (the embedded
queue manager, like MQ, refuses with 2030). So a row whose payload passes
`largeMessageThreshold` (or would not fit the queue with its properties) is written as TWO
messages, in ONE unit of work, back to back on the same queue:

1. the REFERENCE message: MQMD.Format = "SPKMQREF", an empty body, every property of the
   row, plus
     * `SparkMQDataLength`  (MQTYPE_INT64): the payload's length in bytes,
     * `SparkMQDataGroupId` (MQTYPE_BYTE_STRING, 24 bytes): the GroupId of the data message;
   the other MQMD fields (CorrelId, Priority, Persistence, Expiry, ReplyTo..., CCSID) are
   the row's.
2. the DATA message: MQMD.Format = "SPKMQDAT", the payload, no properties,
   MQMD.GroupId = that id, MsgSeqNumber = 1, MsgFlags = MQMF_SEGMENTATION_ALLOWED |
   MQMF_LAST_MSG_IN_GROUP (a one-message group), so that the queue manager segments it
   past MAXMSGL; the other MQMD fields are the row's.

A plain MQ consumer follows it the same way spark-mq's reader does: get a message; if its
Format is SPKMQREF, take its properties and SparkMQDataGroupId, then get the data message
with MatchOptions = MQMO_MATCH_GROUP_ID, GroupId = that id and MQGMO_COMPLETE_MSG (the
queue manager reassembles the segments); its body, SparkMQDataLength bytes long, is the
payload, and the reference message's properties (less the two SparkMQData* ones) are its
properties. Get both under one syncpoint so that the pair is consumed together. The row's
own MQMD Format is not kept by the pattern (both Format fields are taken by it).
"""
from __future__ import annotations

import os
from typing import Any

REFERENCE_FORMAT = b"SPKMQREF"
DATA_FORMAT = b"SPKMQDAT"
LENGTH_PROPERTY = "SparkMQDataLength"
GROUP_ID_PROPERTY = "SparkMQDataGroupId"
_GROUP_ID_PREFIX = b"SPKMQ"


def new_group_id() -> bytes:
    """A fresh 24-byte group id, unique without asking the queue manager (19 random bytes)."""
    return _GROUP_ID_PREFIX + os.urandom(19)


def reference_properties(properties: list[tuple[str, Any, str]], payload_length: int,
                         group_id: bytes) -> list[tuple[str, Any, str]]:
    """The reference message's properties: the row's plus the two that point at the data."""
    return list(properties) + [(LENGTH_PROPERTY, payload_length, "long"),
                               (GROUP_ID_PROPERTY, group_id, "binary")]
