"""Puts/s of the embedded queue manager with its trace off, on, and on but selecting another
queue (server/core/trace.py): what a trace costs, and that it costs nothing when off.

    .venv/bin/python bench/bench_trace.py [--quick] [--messages 20000]

One queue manager, one ibmmq client connection, non-persistent 1 KiB puts without syncpoint
(the call whose own work is smallest, so a trace's share shows most). The settings take turns,
round after round, so that a machine's drift falls on all of them alike; each figure is the
best round's. Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time

SETTINGS = [
    ("off", ""),
    ("on, API, all calls", "START TRACE TYPE(API)"),
    ("on, API, another queue", "START TRACE TYPE(API) QUEUE(BENCH.OTHER)"),
    ("on, API, all calls, DATA(-1)", "START TRACE TYPE(API) DATA(-1)"),
]
BODY = b"x" * 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--messages", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--off-only", action="store_true",
                        help="only the trace-off figure: to compare with a tree without the "
                             "trace (PYTHONPATH=that/src), which has no START TRACE")
    args = parser.parse_args()
    settings = SETTINGS[:1] if args.off_only else SETTINGS
    count = args.messages or (3000 if args.quick else 20000)
    rounds = args.rounds or (2 if args.quick else 4)
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq
    from ibmmq import CMQC
    with tempfile.TemporaryDirectory() as data, \
            embedded.EmbeddedQueueManager(data, name="QMBENCH") as qm:
        qm.run_mqsc("DEFINE QLOCAL(BENCH.Q) MAXDEPTH(999999999)\nDEFINE QLOCAL(BENCH.OTHER)")
        conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
        md, pmo = ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        best: dict[str, float] = {}
        for _ in range(rounds):
            for label, command in settings:
                if command:
                    qm.run_mqsc(command)
                queue = ibmmq.Queue(conn, "BENCH.Q", CMQC.MQOO_OUTPUT)
                started = time.perf_counter()
                for _ in range(count):
                    md.MsgId = CMQC.MQMI_NONE
                    queue.put(BODY, md, pmo)
                rate = count / (time.perf_counter() - started)
                queue.close()
                if command:
                    qm.run_mqsc("STOP TRACE")
                qm.run_mqsc("CLEAR QLOCAL(BENCH.Q)")
                best[label] = max(best.get(label, 0.0), rate)
        conn.disconnect()
    off = best["off"]
    figures = {f"{label} puts/s": round(rate, 1) for label, rate in best.items()}
    ratios = {f"{label} / off": round(rate / off, 3) for label, rate in best.items()
              if label != "off"}
    print("BENCH " + json.dumps({"name": "trace", "figures": figures, "ratios": ratios,
                                 "notes": f"1 KiB non-persistent puts, {count} a round, best "
                                          f"of {rounds} rounds"}))


if __name__ == "__main__":
    main()
