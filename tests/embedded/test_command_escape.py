"""Conformance: MQCMD_ESCAPE, MQSC carried in PCF, through IBM's ibmmq.PCFExecute (and a raw
request where the MQCFH of each answer matters) against a real embedded queue manager."""
from __future__ import annotations

import os

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"


def unique(prefix: str) -> str:
    unique.counter = getattr(unique, "counter", 0) + 1
    return f"{prefix}.{os.getpid()}.{unique.counter}"


@pytest.fixture
def pcf(conn):
    executor = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    yield executor
    executor.disconnect()


def escape(pcf, text: str) -> list[str]:
    answers = pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: CMQCFC.MQET_MQSC,
                                CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()})
    assert all(a[CMQCFC.MQIACF_ESCAPE_TYPE] == CMQCFC.MQET_MQSC for a in answers)
    return [a[CMQCFC.MQCACF_ESCAPE_TEXT].decode().strip() for a in answers]


def refusal(pcf, text: str, escape_type: int = CMQCFC.MQET_MQSC) -> tuple[int, str]:
    """(reason, text of the answer) of an escape that fails."""
    responses: list = []
    with pytest.raises(ibmmq.MQMIError) as failed:
        pcf.MQCMD_ESCAPE({CMQCFC.MQIACF_ESCAPE_TYPE: escape_type,
                          CMQCFC.MQCACF_ESCAPE_TEXT: text.encode()}, responses=responses)
    assert failed.value.comp == CMQC.MQCC_FAILED
    parameters = responses[0][0] if responses else {}
    return failed.value.reason, parameters.get(CMQCFC.MQCACF_ESCAPE_TEXT, b"").decode().strip()


def test_mqsc_in_pcf_defines_alters_and_deletes(qm, pcf, conn):
    name = unique("ESC")
    assert escape(pcf, f"DEFINE QLOCAL({name}) MAXDEPTH(7)") == [f"AMQ8006I: IBM MQ queue created: {name}."]
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    assert queue.inquire(CMQC.MQIA_MAX_Q_DEPTH) == 7
    queue.close()
    assert escape(pcf, f"ALTER QLOCAL({name}) MAXDEPTH(9)")[0].startswith("AMQ8008I")
    assert "MAXDEPTH(9)" in qm.run_mqsc(f"DISPLAY QLOCAL({name}) MAXDEPTH")
    assert escape(pcf, f"DELETE QLOCAL({name})")[0].startswith("AMQ8007I")
    with pytest.raises(Exception, match="AMQ8147E"):
        qm.run_mqsc(f"DISPLAY QLOCAL({name})")


def test_a_display_answers_one_message_per_object(qm, pcf):
    prefix = unique("ESCD")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.A) DESCR('first')\nDEFINE QLOCAL({prefix}.B)")
    answers = escape(pcf, f"DISPLAY QLOCAL({prefix}.*) DESCR")
    assert len(answers) == 2
    assert answers[0].startswith("AMQ8409I") and f"QUEUE({prefix}.A)" in answers[0]
    assert "DESCR(first)" in answers[0] and f"QUEUE({prefix}.B)" in answers[1]


def test_each_answer_names_the_pcf_command_its_mqsc_text_is(make_queue, conn):
    reply_queue = make_queue()
    header = ibmmq.CFH(Type=CMQCFC.MQCFT_COMMAND, Command=CMQCFC.MQCMD_ESCAPE, ParameterCount=2)
    body = header.pack() + ibmmq.CFIN(Parameter=CMQCFC.MQIACF_ESCAPE_TYPE,
                                      Value=CMQCFC.MQET_MQSC).pack() \
        + ibmmq.CFST(Parameter=CMQCFC.MQCACF_ESCAPE_TEXT, String=b"PING QMGR").pack()
    md = ibmmq.MD(Format=CMQC.MQFMT_ADMIN, MsgType=CMQC.MQMT_REQUEST, ReplyToQ=reply_queue.encode())
    conn.put1(COMMAND_QUEUE, body, md)
    queue = ibmmq.Queue(conn, reply_queue, CMQC.MQOO_INPUT_SHARED)
    reply = queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000))
    queue.close()
    answer = ibmmq.CFH()
    answer.unpack(reply[:CMQCFC.MQCFH_STRUC_LENGTH])
    assert (answer.Command, answer.CompCode, answer.Control) == (
        CMQCFC.MQCMD_PING_Q_MGR, CMQC.MQCC_OK, CMQCFC.MQCFC_LAST)


def test_a_failed_command_answers_failed_with_runmqscs_message(pcf):
    reason, text = refusal(pcf, "DELETE QLOCAL(NO.SUCH.ESCAPE.QUEUE)")
    assert reason == CMQCFC.MQRCCF_COMMAND_FAILED and "NO.SUCH.ESCAPE.QUEUE" in text


def test_bad_escapes(pcf):
    assert refusal(pcf, "PING QMGR", escape_type=99)[0] == CMQCFC.MQRCCF_ESCAPE_TYPE_ERROR
    reason, text = refusal(pcf, "DEFINE QLOCAL(X) NOSUCHKEYWORD(1)")
    assert reason == CMQCFC.MQRCCF_COMMAND_FAILED and "AMQ8405E" in text and "NOSUCHKEYWORD" in text
    reason, text = refusal(pcf, "PING QMGR\nPING QMGR")
    assert reason == CMQCFC.MQRCCF_COMMAND_FAILED and "exactly one" in text
