"""The MQSC splitter clients use to send one command per PCF Escape (spark_mq/mqi/mqsc_text.py)."""
from __future__ import annotations

import pytest

from spark_mq.mqi.mqsc_text import MQSCSyntaxError, MQSCText, split_mqsc


def test_continuations_comments_semicolons_and_end():
    script = ("* a comment\n"
              "DEFINE QLOCAL(A) +\n"
              "       DESCR('x;y''s (z')\n"
              "\n"
              "DEFINE QLOCAL(B); ALTER QLOCAL(B) -\n"
              " MAXDEPTH(2)\n"
              "END\n"
              "DEFINE QLOCAL(NEVER)\n")
    assert split_mqsc(script) == [
        MQSCText("DEFINE QLOCAL(A) DESCR('x;y''s (z')", 2),
        MQSCText("DEFINE QLOCAL(B)", 5),
        MQSCText("ALTER QLOCAL(B)  MAXDEPTH(2)", 5),
    ]


@pytest.mark.parametrize("script,line", [
    ("DEFINE QLOCAL(A)\nDEFINE QLOCAL(X) MAXDEPTH(", 2),
    ("DEFINE QLOCAL(A) DESCR('open", 1),
    ("DEFINE QLOCAL(A))", 1),
    ("\n\nDEFINE QLOCAL(A; B)", 3),
])
def test_a_broken_structure_names_its_line(script, line):
    with pytest.raises(MQSCSyntaxError) as exc:
        split_mqsc(script)
    assert exc.value.line == line and f"MQSC line {line}:" in str(exc.value)
