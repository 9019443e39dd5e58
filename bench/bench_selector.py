"""Cost of message selection in the embedded queue manager (issue: selectors).

A deep queue where 1 message in 10 matches `colour = 'red'`: messages/s of a selective
get that drains the matching ones, against an unselective get of as many messages from
the same queue, in the same run.

    .venv/bin/python bench/bench_selector.py [--messages 100000] [--quick]
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time

import spark_mq.embedded as embedded

embedded.install()
import ibmmq  # noqa: E402  (after install: the embedded transport)
from ibmmq import CMQC  # noqa: E402

BODY = b"x" * 1024


def load(conn, queue_name: str, count: int) -> None:
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_OUTPUT)
    handle = ibmmq.MessageHandle(conn)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID,
                    OriginalMsgHandle=handle.msg_handle)
    for index in range(count):
        handle.properties.set("colour", "red" if index % 10 == 0 else "blue")
        queue.put(BODY, ibmmq.MD(), pmo)
    conn.stat(CMQC.MQSTAT_TYPE_ASYNC_ERROR)
    queue.close()


def drain(queue, limit: int | None) -> tuple[int, float]:
    md, gmo = ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_PROPERTIES)
    got = 0
    start = time.perf_counter()
    while limit is None or got < limit:
        md.MsgId = md.CorrelId = CMQC.MQMI_NONE
        try:
            queue.get(None, md, gmo)
        except ibmmq.MQMIError as exc:
            if exc.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
            break
        got += 1
    return got, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="20,000 messages")
    args = parser.parse_args()
    count = 20_000 if args.quick else args.messages
    with embedded.EmbeddedQueueManager(tempfile.mkdtemp(prefix="bench-selector-")) as qm:
        qm.run_mqsc("DEFINE QLOCAL(BENCH.SELECT) MAXDEPTH(999999999)")
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        load(conn, "BENCH.SELECT", count)
        od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=b"BENCH.SELECT")
        od.set_vs("SelectionString", "colour = 'red'")
        selective = ibmmq.Queue(conn, od, CMQC.MQOO_INPUT_SHARED)
        matched, selective_seconds = drain(selective, None)
        selective.close()
        plain = ibmmq.Queue(conn, "BENCH.SELECT", CMQC.MQOO_INPUT_SHARED)
        unselected, plain_seconds = drain(plain, matched)
        plain.close()
        conn.disconnect()
    selective_rate = matched / selective_seconds
    plain_rate = unselected / plain_seconds
    print(f"selective get ({matched} of {count} match): {selective_rate:,.0f} msg/s; "
          f"unselective get: {plain_rate:,.0f} msg/s")
    print("BENCH " + json.dumps({
        "name": "selector",
        "figures": {"selective get msg/s": round(selective_rate), "unselective get msg/s": round(plain_rate),
                    "queue depth": count},
        "ratios": {"selective / unselective": round(selective_rate / plain_rate, 2)},
        "notes": "1 KiB non-persistent messages, 1 in 10 matches colour = 'red'"}))


if __name__ == "__main__":
    main()
