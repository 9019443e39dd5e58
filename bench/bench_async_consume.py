"""Messages/s delivered through asynchronous consume (MQCB + MQCTL) against a bare MQGET loop
doing the same gets on the same embedded queue manager in the same run.

    .venv/bin/python bench/bench_async_consume.py [--quick] [--messages 100000]

Three pairs, each on a queue filled beforehand with 1 KiB messages:
* non-persistent, outside syncpoint, no read-ahead: one CBWAIT per message vs one MQGET;
* the same on a read-ahead queue (DEFREADA(YES)): batches behind the consumer vs MQGET's
  read-ahead buffer;
* persistent under syncpoint, MQCMIT every --batch messages (from inside the callback).
The consumer runs under MQOP_START_WAIT (the caller's thread) and stops itself from the
callback after the last message. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BODY = b"x" * 1024


def fill(ibmmq, conn, queue: str, count: int, persistent: bool) -> None:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT if persistent else CMQC.MQPER_NOT_PERSISTENT)
    pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_NEW_MSG_ID)
    for i in range(count):
        q.put(BODY, md, pmo)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    q.close()


def bare_get(ibmmq, conn, queue: str, count: int, syncpoint: bool, batch: int) -> float:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    gmo = ibmmq.GMO(Options=(CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT)
                    | CMQC.MQGMO_NO_WAIT, MatchOptions=CMQC.MQMO_NONE)
    started = time.perf_counter()
    for done in range(1, count + 1):
        q.get(4096, ibmmq.MD(), gmo)
        if syncpoint and done % batch == 0:
            conn.commit()
    conn.commit()
    elapsed = time.perf_counter() - started
    q.close()
    return count / elapsed


def callback_get(ibmmq, conn, queue: str, count: int, syncpoint: bool, batch: int) -> float:
    CMQC = ibmmq.CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    seen = [0]

    def consume(queue_manager, queue, md, gmo, msg, cbc):
        if cbc.CallType != CMQC.MQCBCT_MSG_REMOVED:
            return
        seen[0] += 1
        if syncpoint and seen[0] % batch == 0:
            queue_manager.commit()
        if seen[0] == count:
            queue_manager.ctl(CMQC.MQOP_STOP, ibmmq.CTLO())

    cbd = ibmmq.CBD()
    cbd.CallbackFunction = consume
    gmo = ibmmq.GMO(Options=(CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT)
                    | CMQC.MQGMO_WAIT, WaitInterval=CMQC.MQWI_UNLIMITED, MatchOptions=CMQC.MQMO_NONE)
    q.cb(operation=CMQC.MQOP_REGISTER, cbd=cbd, md=ibmmq.MD(), gmo=gmo)
    started = time.perf_counter()
    conn.ctl(CMQC.MQOP_START_WAIT, ibmmq.CTLO())
    elapsed = time.perf_counter() - started
    conn.commit()
    q.cb(operation=CMQC.MQOP_DEREGISTER)
    q.close()
    return seen[0] / elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--messages", type=int, default=None)
    parser.add_argument("--batch", type=int, default=1000, help="messages per MQCMIT (syncpoint)")
    args = parser.parse_args()
    count = args.messages or (20_000 if args.quick else 100_000)
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq

    figures: dict[str, float] = {"messages": count}
    ratios: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as data_dir, \
            embedded.EmbeddedQueueManager(data_dir, name="BENCH") as qm:
        qm.run_mqsc("DEFINE QLOCAL(PLAIN) MAXDEPTH(999999999)\n"
                    "DEFINE QLOCAL(AHEAD) MAXDEPTH(999999999) DEFREADA(YES)\n")
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        runs = (("non-persistent", "PLAIN", False, False),
                ("read-ahead", "AHEAD", False, False),
                ("syncpoint persistent", "PLAIN", True, True))
        for label, queue, persistent, syncpoint in runs:
            fill(ibmmq, conn, queue, count, persistent)
            bare = bare_get(ibmmq, conn, queue, count, syncpoint, args.batch)
            fill(ibmmq, conn, queue, count, persistent)
            async_rate = callback_get(ibmmq, conn, queue, count, syncpoint, args.batch)
            figures[f"{label} MQCB msg/s"] = round(async_rate)
            figures[f"{label} bare MQGET msg/s"] = round(bare)
            ratios[f"{label} MQCB / MQGET"] = round(async_rate / bare, 2)
            print(f"{label:22s} MQCB {async_rate:10.0f} msg/s   bare MQGET {bare:10.0f} msg/s   "
                  f"ratio {async_rate / bare:.2f}")
        conn.disconnect()
    print("BENCH " + json.dumps({"name": "async_consume", "figures": figures, "ratios": ratios,
                                 "notes": f"1 KiB messages, MQCMIT every {args.batch} under syncpoint"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
