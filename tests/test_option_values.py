"""How the connector's errors leave for Spark (no Spark, no queue manager here; the end to end
proof is tests/spark/test_errors.py): an error of ours leads with its own line wherever the
chain is printed, names its queue manager, carries the MQ error as its cause, and leaves
without the frames of the connector's code; a user schema's payload may be binary or string;
the hints of a 2035 name what the client can tell."""
from __future__ import annotations

import pickle
import traceback

import pytest

from spark_mq.columns import Source, plan_columns, to_rows
from spark_mq.errors import MQConnectorError, MQOptionError, MQSchemaError, reports_to_spark
from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.mq.exceptions import describe, summary_first
from spark_mq.mq.message import MD_FIELDS, Message
from spark_mq.mq.refusals import authorities, connect_refused_hint, missing_authority_hint
from spark_mq.mqi.constants import CMQC
from spark_mq.options import requested_read_mode

QM = ConnectionOptions(queue_manager="QMX", conn_name="localhost(16990)", user="app")


class FakeMQMIError(Exception):
    """What ibmmq raises: a completion code and a reason."""

    def __init__(self, comp: int, reason: int) -> None:
        super().__init__(f"MQI Error. Comp {comp}, Reason {reason}")
        self.comp, self.reason = comp, reason


def formatted(exc: BaseException) -> list[str]:
    return "".join(traceback.format_exception(exc)).splitlines()


def failing_open() -> None:
    try:
        raise FakeMQMIError(2, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    except FakeMQMIError as exc:
        raise describe(exc, "opening queue 'NO.SUCH.Q' for input") from exc


@reports_to_spark("latestOffset", "read")
class Reader:
    error_connection = QM

    def latestOffset(self) -> None:
        failing_open()

    def read(self):
        yield 1
        raise MQOptionError("numPartitions", "0", "an integer from 1 to 1024")

    def other(self) -> None:
        raise ValueError("a bug")


def test_an_error_leaving_for_spark_leads_with_its_line_and_names_its_queue_manager():
    with pytest.raises(MQConnectorError) as failure:
        Reader().latestOffset()
    lines = formatted(failure.value)
    assert lines[0] == ("spark_mq.mq.exceptions.MQConnectorError: queue manager QMX at localhost(16990): "
                        "opening queue 'NO.SUCH.Q' for input failed: MQ reason 2085 "
                        "MQRC_UNKNOWN_OBJECT_NAME (completion code 2): no such queue on this "
                        "queue manager: check the queue name (MQ names are case-sensitive)")
    assert lines[-1] == lines[0]                           # the error itself, at the end
    assert isinstance(failure.value.__cause__, FakeMQMIError)    # the cause, chained
    assert any("raise FakeMQMIError" in line for line in lines)  # ... with its frames
    assert not any("failing_open()" in line for line in lines)   # not the connector's frames
    assert failure.value.reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_generators_report_too_and_other_exceptions_pass_untouched():
    with pytest.raises(MQOptionError) as failure:
        list(Reader().read())
    assert formatted(failure.value)[0] == ("spark_mq.mq.exceptions.MQOptionError: option 'numPartitions': "
                                           "invalid value '0'; valid: an integer from 1 to 1024")
    with pytest.raises(ValueError) as bug:
        Reader().other()
    assert bug.value.__cause__ is None and formatted(bug.value)[0].startswith("Traceback")


def test_the_summary_is_made_once():
    error = MQConnectorError("x failed: MQ reason 2009", 2009, "MQRC_CONNECTION_BROKEN")
    summary_first(summary_first(error))
    summary = error.__cause__
    assert summary is not None and summary.__cause__ is None and summary.__traceback__ is None
    assert str(summary) == str(error) and summary.reason == 2009
    assert formatted(error).count("spark_mq.mq.exceptions.MQConnectorError: x failed: MQ reason 2009") == 2


def test_the_queue_manager_is_named_once():
    error = MQConnectorError("connecting to queue manager QMX at h(1) failed")
    assert str(error.at("QMX", "h(1)")) == "connecting to queue manager QMX at h(1) failed"
    assert str(MQConnectorError("putting failed").at("QMX", None)) == "queue manager QMX: putting failed"


@pytest.mark.parametrize("given, mode", [({}, "driver"), ({"readMode": " Executors "}, "executors"),
                                         ({"READMODE": "bogus"}, "driver")])
def test_which_stream_reader_to_make_is_decided_without_failing(given, mode):
    assert requested_read_mode(given) == mode


def test_payload_may_be_read_as_binary_or_string_and_nothing_else():
    assert [s.kind for s in plan_columns([("payload", "string")])] == ["string"]
    with pytest.raises(MQSchemaError) as failure:
        plan_columns([("payload", "int")])
    assert str(failure.value) == (
        "schema column 'payload': type int is not one the reader can give it; valid: binary | "
        "string (the message data as text, decoded by each message's CCSID; null where it is "
        "not text in that CCSID)")
    copy = pickle.loads(pickle.dumps(failure.value))
    assert str(copy) == str(failure.value) and copy.column == "payload"


def _message(payload: bytes, ccsid: int, fmt: bytes) -> Message:
    md = dict.fromkeys(MD_FIELDS, 0)
    md.update(CodedCharSetId=ccsid, Encoding=CMQC.MQENC_NATIVE, Format=fmt)
    return Message(payload=payload, md=tuple(md.values()), properties={}, record=b"")


def test_a_string_payload_is_decoded_by_each_message_ccsid():
    specs = plan_columns([("payload", "string"), ("text", "string")])
    messages = [_message("Grüße".encode("cp500"), 500, b"MQSTR   "),   # EBCDIC
                _message("naïve".encode(), 1208, b"        "),         # UTF-8, binary format
                _message(b"\xff\xfe\xfd", 1208, b"        ")]          # not UTF-8 text
    rows = to_rows(messages, Source("Q", "QM"), specs)
    assert rows == [("Grüße", "Grüße"), ("naïve", None), (None, None)]


def test_a_refused_open_names_the_authorities_its_options_need():
    assert authorities(CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING) == [
        ("get", "GET"), ("inq", "INQ")]
    hint = missing_authority_hint(QM, "ORDERS", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    assert "user 'app'" in hint and "queue 'ORDERS': this call needs +put +setall" in hint
    assert "setmqaut -m QMX -n 'ORDERS' -t queue -p app +put +setall" in hint
    assert "SET AUTHREC PROFILE('ORDERS') OBJTYPE(QUEUE) PRINCIPAL('app') AUTHADD(PUT,SETALL)" in hint
    topic = missing_authority_hint(QM, "orders/eu", 0, "topic")
    assert "topic object that covers topic 'orders/eu': this call needs +sub" in topic
    assert "-t topic -p app +sub" in topic


def test_a_refused_connection_without_a_user_says_one_may_be_required():
    hint = connect_refused_hint(ConnectionOptions(queue_manager="QMX", conn_name="localhost(16990)"))
    assert "no 'user' and 'password' where the queue manager requires them" in hint
    assert "AMQ5540E" in hint and "ADDRESS('127.0.0.1')" in hint
