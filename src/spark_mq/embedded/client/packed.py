"""Reading the packed MQI structures `ibmmq` hands to its C extension (application's process).

The verbs need a few fields of MQMD, MQPMO and MQGMO before anything goes to the queue
manager (options, match options, message handles); these read them straight from the bytes
at their fixed offsets instead of unpacking whole structures on every put and get.
`error` is `ibmmqc.error`, what the C extension raises for a structure of the wrong size.
"""
from __future__ import annotations

import struct

from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import GMO, MD, PMO


class error(Exception):  # noqa: N801 - the C extension's name for it
    """ibmmqc.error: raised for malformed structures, as the C extension does."""


NONE_ID = b"\0" * 24
DEFAULT_MATCH: int = CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
INT = struct.Struct("=i")
GMO_OPTIONS_AT = 8
MD_MSGID = slice(MD.offsets["MsgId"], MD.offsets["MsgId"] + 24)
MD_CORRELID = slice(MD.offsets["CorrelId"], MD.offsets["CorrelId"] + 24)
_PMO_HEAD = struct.Struct("=4siiii")          # StrucId, Version, Options, Timeout, Context
_PMO_HMSG = struct.Struct("=q")
_PMO_HMSG_AT = PMO.offsets["OriginalMsgHandle"]
_GMO_HEAD = struct.Struct("=4sii")            # StrucId, Version, Options
_GMO_MATCH_AT, _GMO_HMSG_AT = GMO.offsets["MatchOptions"], GMO.offsets["MsgHandle"]
_MD_HEAD = struct.Struct("=4si")


def read_pmo(pmo: bytes) -> tuple[int, int, int] | None:
    """(Options, Context, OriginalMsgHandle) of a valid MQPMO, else None (MQRC_PMO_ERROR)."""
    strucid, version, options, _, context = _PMO_HEAD.unpack_from(pmo)
    if strucid != b"PMO " or not 1 <= version <= 3:
        return None
    hmsg = _PMO_HMSG.unpack_from(pmo, _PMO_HMSG_AT)[0] if version >= 3 else 0
    return options, context, hmsg


def read_gmo(gmo: bytes) -> tuple[int, int, int] | None:
    """(Options, MatchOptions, MsgHandle) of a valid MQGMO, else None (MQRC_GMO_ERROR).
    Fields past the caller's version do not exist for MQ, so their defaults apply."""
    strucid, version, options = _GMO_HEAD.unpack_from(gmo)
    if strucid != b"GMO " or not 1 <= version <= 4:
        return None
    match = INT.unpack_from(gmo, _GMO_MATCH_AT)[0] if version >= 2 else DEFAULT_MATCH
    hmsg = _PMO_HMSG.unpack_from(gmo, _GMO_HMSG_AT)[0] if version >= 4 else 0
    return options, match, hmsg


def md_ok(md: bytes) -> bool:
    if len(md) != MD.size:
        return False
    strucid, version = _MD_HEAD.unpack_from(md)
    return strucid == b"MD  " and version in (1, 2)
