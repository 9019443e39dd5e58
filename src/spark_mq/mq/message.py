"""A message as the reader hands it on: payload, the MQMD fields it needs, its properties.

Messages cross from the driver to executors inside Spark partitions, so they are plain
tuples (cheap to pickle), not ibmmq objects.

The reference/data pattern (written by spark_mq.writer, readable by any MQ application):
a payload that carries properties and is larger than the writer's `largeMessageThreshold`
is put, in ONE unit of work, as two messages:

1. a REFERENCE message: MQMD.Format = "SPKMQREF", empty body, all the row's properties plus
   `SparkMQDataLength` (INT64, the payload length) and `SparkMQDataGroupId` (BYTE_STRING,
   24 bytes);
2. a DATA message without properties: MQMD.Format = "SPKMQDAT", MQMD.GroupId = that id,
   MsgSeqNumber = 1, MsgFlags = MQMF_SEGMENTATION_ALLOWED | MQMF_LAST_MSG_IN_GROUP, so
   the queue manager may segment it (it carries no MQRFH2 that would outgrow MAXMSGL).

A consumer that gets a reference message gets the data message in the same unit of work
with MQMO_MATCH_GROUP_ID + MQGMO_COMPLETE_MSG and treats the pair as one message: the data
message's payload with the reference message's MQMD and properties (less the two
SparkMQ* properties).
"""
from __future__ import annotations

from typing import Any, NamedTuple

# one definition, in large_messages; re-exported under the reader's names (see __all__)
from spark_mq.mq.large_messages import DATA_FORMAT, REFERENCE_FORMAT
from spark_mq.mq.large_messages import GROUP_ID_PROPERTY as DATA_GROUP_PROPERTY
from spark_mq.mq.large_messages import LENGTH_PROPERTY as DATA_LENGTH_PROPERTY

__all__ = ["DATA_FORMAT", "DATA_GROUP_PROPERTY", "DATA_LENGTH_PROPERTY", "MD_FIELDS", "MD_INDEX",
           "NO_ID", "REFERENCE_FORMAT", "Message", "md_values"]

NO_ID = b"\0" * 24

#: the MQMD fields a message carries, in this order (see spark_mq.columns for the columns)
MD_FIELDS = ("MsgId", "CorrelId", "GroupId", "MsgSeqNumber", "MsgFlags", "PutDate", "PutTime",
             "Persistence", "Priority", "Format", "CodedCharSetId", "Encoding", "BackoutCount",
             "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData", "PutApplName",
             "MsgType", "Expiry", "Feedback", "AccountingToken", "ApplOriginData", "PutApplType",
             "Report")
MD_INDEX = {name: i for i, name in enumerate(MD_FIELDS)}


class Message(NamedTuple):
    payload: bytes
    md: tuple[Any, ...]  # values of MD_FIELDS
    properties: dict[str, Any]
    record: bytes        # how to find this message again (spark_mq.mq.records)
    reason: int = 0      # MQGMO_CONVERT's warning when the payload came unconverted
    property_types: dict[str, str] | None = None   # typed reads only (spark_mq.mq.properties)

    def field(self, name: str) -> Any:
        return self.md[MD_INDEX[name]]


def md_values(md: Any) -> tuple[Any, ...]:
    """The MD_FIELDS of an unpacked ibmmq MD, as a plain tuple."""
    return tuple(getattr(md, name) for name in MD_FIELDS)
