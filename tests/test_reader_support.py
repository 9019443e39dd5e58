"""Helpers shared by the reader tests (no tests in here)."""
from __future__ import annotations

import ibmmq
from ibmmq import CMQC


def reader_options(qm, queue: str, **extra) -> dict:
    options = {"queueManager": qm.name, "connName": qm.conn_name, "channel": qm.channel,
               "queue": queue, "transport": "embedded"}
    options.update({k: str(v) for k, v in extra.items()})
    return options


def put_messages(conn, queue: str, payloads, properties=None, persistent: bool = True,
                 md_fields=None) -> list[bytes]:
    """Put each payload (with optional per-message property dicts); returns the MsgIds."""
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    ids = []
    try:
        for i, payload in enumerate(payloads):
            md = ibmmq.MD()
            md.Persistence = CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT
            for field, value in (md_fields or {}).items():
                setattr(md, field, value)
            pmo = ibmmq.PMO()
            if properties is not None and properties[i]:
                handle = ibmmq.MessageHandle(conn)
                for name, (value, mq_type, length) in properties[i].items():
                    handle.properties.set(name, value, property_type=mq_type, value_length=length)
                pmo.OriginalMsgHandle = handle.msg_handle
            q.put(payload, md, pmo)
            ids.append(md.MsgId)
    finally:
        q.close()
    return ids


def depth(conn, queue: str) -> int:
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        q.close()


def drain(conn, queue: str) -> list[tuple[bytes, object]]:
    """Get every message off a queue: [(payload, md)] (properties left out of the payload)."""
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    handle = ibmmq.MessageHandle(conn)
    out = []
    try:
        while True:
            md, gmo = ibmmq.MD(), ibmmq.GMO()
            gmo.Options = (CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
                           | CMQC.MQGMO_PROPERTIES_IN_HANDLE)
            gmo.MsgHandle = handle.msg_handle
            try:
                out.append((q.get(None, md, gmo), md))
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
    finally:
        q.close()


def run_available_now(spark, options: dict, tmp_path, schema: str | None = None,
                      select=("*",), name: str = "q"):
    """Run a Trigger.AvailableNow query into a parquet sink; returns (rows, query)."""
    reader = spark.readStream.format("mq").options(**options)
    if schema:
        reader = reader.schema(schema)
    out, checkpoint = str(tmp_path / f"{name}-out"), str(tmp_path / f"{name}-ck")
    query = (reader.load().selectExpr(*select).writeStream.format("parquet")
             .option("path", out).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
    query.awaitTermination(180)
    if query.exception():
        raise query.exception()
    try:
        rows = spark.read.parquet(out).collect()
    except Exception:  # noqa: BLE001 - no batch ran: no files
        rows = []
    return rows, query
