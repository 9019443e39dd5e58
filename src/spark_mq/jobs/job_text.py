"""How the jobs turn messages into text: by each message's own CCSID, never into
replacement characters.

A job that writes a message's data as text reads the connector's `text` column (the data
decoded by the message's CodedCharSetId: EBCDIC 37 and 500 from a mainframe, UTF-8 from
Java, ...) with the reader option requireText: a message that is not text (Format not
MQSTR, a CCSID without a code page here, bytes not valid in its CCSID) does not become a
row but is moved, in the batch's unit of work, to the queue's backout queue (BOQNAME, else
the dead-letter queue) behind an MQDLH whose Reason says why. Moved, not left: a message
left on the queue would be read again by the next batch, for ever. The job's summary says
how many were moved and where (`not_text_line`), from the reader's progress.
"""
from __future__ import annotations

from typing import Any

#: the paragraph each text-writing job's --help has
HELP = """Code pages: the text written is each message's data decoded by its own CCSID (the
MQMD CodedCharSetId: EBCDIC 37, 500, 1140 ..., UTF-8, UTF-16, the connector's `text`
column), so mainframe and Java senders arrive as they meant. A message that is not text
(Format not MQSTR: 2110 MQRC_FORMAT_ERROR; a CCSID with no code page here: 2111
MQRC_SOURCE_CCSID_ERROR; bytes not valid in its CCSID: 2119 MQRC_NOT_CONVERTED) is never
written as replacement characters: it is moved to the queue's backout queue (BOQNAME, else
the dead-letter queue) behind an MQDLH whose Reason says why, in the same unit of work, and
the job's last lines say how many and where (with neither queue the job stops with an error
and the message stays where it was)."""

#: the reader options that make the `text` column of every row non-null
REQUIRE_TEXT = {"requireText": "true"}


def text_read_options(delivery: str) -> dict[str, str]:
    """requireText where the delivery has a unit of work to move a message in (atMostOnce
    has none: there a message that is not text gives a null `text`, never garbage)."""
    return dict(REQUIRE_TEXT) if delivery != "atMostOnce" else {}


def not_text_line(report: dict[str, Any] | None, queue: str) -> str | None:
    """The summary line for the messages requireText moved, from the reader's last
    progress report (`sources[0].latestOffset`); None when none was moved."""
    moved = int((report or {}).get("notTextMessagesMoved") or 0)
    if not moved:
        return None
    where = (report or {}).get("notTextMovedTo") or "the backout queue"
    return (f"not text: {moved:,} message{'' if moved == 1 else 's'} of {queue} could not be "
            f"written as text (not MQSTR, a CCSID without a code page here, or bytes invalid in "
            f"their CCSID) and {'was' if moved == 1 else 'were'} moved to {where}, each behind "
            f"an MQDLH whose Reason says why; see them: spark-mq-qmgr browse {where}")
