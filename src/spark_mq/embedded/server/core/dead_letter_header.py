"""The MQDLH a message goes to the dead-letter queue behind (IBM docs: MQDLH): the reason,
where the message was going, and the Encoding, CCSID and Format of the data that follows;
the message's own MQMD, context included, is kept except that it now describes the MQDLH
(Format MQDEAD). One layout for the channel agents (message_channels/dead_letters.py) and
for report messages that cannot be delivered (verbs/reports.py)."""
from __future__ import annotations

import time

from spark_mq.embedded.server.core.md_context import put_stamp
from spark_mq.embedded.server.core.state import QMGR_CCSID, blank
from spark_mq.mqi.constants import CMQC
from spark_mq.mqi.structs import DLH, MD

_I = MD.index


def dead_letter_header(qmgr_name: str, md: list, reason: int, dest_queue: str,
                       dest_qmgr: str) -> bytes:
    """The MQDLH of the message `md` that could not go to `dest_queue` at `dest_qmgr`
    (`reason` why), put by the queue manager `qmgr_name` now."""
    now = time.time()
    date, hms = put_stamp(int(now))
    return DLH.pack([
        b"DLH ", CMQC.MQDLH_VERSION_1, reason, blank(dest_queue, 48), blank(dest_qmgr, 48),
        md[_I["Encoding"]], md[_I["CodedCharSetId"]], md[_I["Format"]], CMQC.MQAT_QMGR,
        blank(qmgr_name, 28), date, hms + b"%02d" % (int(now * 100) % 100)])


def dead_letter_md(md: list) -> list:
    """The message's MQMD as it describes the MQDLH in front of its data."""
    dead = list(md)
    dead[_I["Format"]] = CMQC.MQFMT_DEAD_LETTER_HEADER
    dead[_I["Encoding"]] = CMQC.MQENC_NATIVE
    dead[_I["CodedCharSetId"]] = QMGR_CCSID
    return dead
