"""The connector's `ccdtUrl` option end to end: connecting through a JSON CCDT with no connName."""
from __future__ import annotations

import json

import pytest
from ibmmq import CMQC

from spark_mq.mq.connecting import ConnectionOptions, connect
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.options import parse_connection
from support import drain_payloads, put_messages


def write_ccdt(path, queue_manager: str, channel: str, conn_name: str) -> str:
    host, port = conn_name.rstrip(")").split("(")
    path.write_text(json.dumps({"channel": [{
        "name": channel, "type": "clientConnection",
        "clientConnection": {"connection": [{"host": host, "port": int(port)}],
                             "queueManager": queue_manager}}]}))
    return f"file://{path}"


def test_connection_options_with_a_ccdt_and_no_conn_name(qm, conn, make_queue, tmp_path):
    url = write_ccdt(tmp_path / "ccdt.json", qm.name, qm.channel, qm.conn_name)
    qmgr = connect(ConnectionOptions(queue_manager=qm.name, ccdt_url=url, transport="embedded"))
    try:
        assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == qm.name.encode()
        queue = make_queue()
        put_messages(qmgr, queue, [b"through the CCDT"])
        assert [payload for payload, _ in drain_payloads(conn, queue)] == [b"through the CCDT"]
    finally:
        qmgr.disconnect()


def test_the_ccdt_url_option_is_parsed_and_used(qm, tmp_path):
    url = write_ccdt(tmp_path / "ccdt.json", "GROUP", qm.channel, qm.conn_name)
    options = parse_connection({"queueManager": "*GROUP", "ccdtUrl": url, "transport": "embedded"})
    assert options.conn_name is None and options.ccdt_url == url
    qmgr = connect(options)
    assert qmgr.inquire(CMQC.MQCA_Q_MGR_NAME).strip() == qm.name.encode()
    qmgr.disconnect()


def test_the_ccdt_decides_where_the_connection_goes(qm, tmp_path):
    # the table's address is used even though this process runs a queue manager of that name
    url = write_ccdt(tmp_path / "ccdt.json", qm.name, qm.channel, "127.0.0.1(1)")
    with pytest.raises(MQConnectorError, match=r"at the CCDT .* 2538 MQRC_HOST_NOT_AVAILABLE"):
        connect(ConnectionOptions(queue_manager=qm.name, ccdt_url=url, transport="embedded"))
    missing = f"file://{tmp_path}/missing.json"
    with pytest.raises(MQConnectorError, match="2278 MQRC_CLIENT_CONN_ERROR"):
        connect(ConnectionOptions(queue_manager=qm.name, ccdt_url=missing, transport="embedded"))
