"""Exactly once through queue-manager kills while a deep backlog is loaded and drained.

    .venv/bin/python bench/backlog_chaos.py --messages 1000000 --kills 8 [--seed S]

1. Load: a loader thread puts --messages persistent 1 KiB messages, 1,000 per unit of work,
   each with a MsgId made from its number, while the queue manager is SIGKILLed and
   restarted at random moments. After a unit of work broken by a kill the loader reconnects
   and gets the unit's last MsgId by browsing (a get by MsgId on a deep queue) to learn
   whether the unit was committed, and puts it again if it was not.
2. Drain: the "mq" reader (exactlyOnce, Trigger.AvailableNow, local[2]) writes each
   message's number to Parquet while the queue manager is killed and restarted again; the
   query rides the restarts out (or, if it fails, is started again on its checkpoint).
3. Count: every number in the committed Parquet files, once; the queue left empty.
Prints the kills, the restarts and the counts; exits 1 when anything was lost or doubled.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

BODY = b"x" * 1024
UNIT = 1000
QUEUE = "BACKLOG.CHAOS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--kills", type=int, default=8,
                        help="queue-manager kills, half during the load, half during the drain")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--batch", type=int, default=20_000, help="maxMessagesPerTrigger")
    parser.add_argument("--quick", action="store_true", help="100,000 messages, 4 kills")
    args = parser.parse_args()
    count, kills = (100_000, 4) if args.quick else (args.messages, args.kills)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    chooser = random.Random(seed)
    print(f"seed {seed}: {count:,} messages, {kills} kills", flush=True)

    os.environ["PYSPARK_PYTHON"] = sys.executable
    import spark_mq.embedded as embedded
    embedded.install()
    import ibmmq

    work = Path(tempfile.mkdtemp(prefix="backlog-chaos-"))
    qm = embedded.EmbeddedQueueManager(str(work / "qm"), name="QMCHAOS").start()
    try:
        qm.run_mqsc(f"DEFINE QLOCAL({QUEUE}) MAXDEPTH(999999999) REPLACE\n"
                    f"ALTER QMGR MAXUMSGS({max(10_000, 2 * args.batch)})")
        started = time.perf_counter()
        loader = Loader(ibmmq, qm, count)
        thread = threading.Thread(target=loader.run, daemon=True)
        thread.start()
        load_kills = kill_while(lambda: thread.is_alive(), qm, chooser, kills // 2)
        thread.join()
        if loader.error:
            raise loader.error
        print(f"loaded in {time.perf_counter() - started:.0f} s, {load_kills} kills, "
              f"{loader.replayed} units put again, {loader.skipped} found committed", flush=True)
        started = time.perf_counter()
        drain_kills, restarts = drain(qm, work, chooser, kills - kills // 2, args.batch)
        print(f"drained in {time.perf_counter() - started:.0f} s, {drain_kills} kills, "
              f"{restarts} query restarts", flush=True)
        lost, doubled, left = count_numbers(ibmmq, qm, work / "out", count)
        print(json.dumps({"seed": seed, "messages": count, "kills": load_kills + drain_kills,
                          "query restarts": restarts, "lost": lost, "doubled": doubled,
                          "left on the queue": left}))
        return 0 if not (lost or doubled or left) else 1
    finally:
        qm.stop()
        shutil.rmtree(work, ignore_errors=True)


class Loader:
    """Puts the numbers 0..count-1, a unit of work of UNIT at a time, through kills."""

    def __init__(self, ibmmq, qm, count: int):
        self.ibmmq, self.qm, self.count = ibmmq, qm, count
        CMQC = ibmmq.CMQC
        #: what a kill of the queue manager answers, and a unit of work it ends
        self.BROKEN = {CMQC.MQRC_CONNECTION_BROKEN, CMQC.MQRC_Q_MGR_NOT_AVAILABLE,
                       CMQC.MQRC_HOST_NOT_AVAILABLE, CMQC.MQRC_BACKED_OUT,
                       CMQC.MQRC_Q_MGR_QUIESCING, CMQC.MQRC_Q_MGR_STOPPING,
                       CMQC.MQRC_CONNECTION_QUIESCING, CMQC.MQRC_CONNECTION_STOPPING,
                       CMQC.MQRC_RECONNECT_FAILED}
        self.replayed = self.skipped = 0
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._load()
        except BaseException as exc:  # reported by the main thread
            self.error = exc

    def _load(self) -> None:
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        conn, queue = self._connect()
        pmo = ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        done = 0
        while done < self.count:
            end = min(done + UNIT, self.count)
            try:
                for n in range(done, end):
                    queue.put(b"%010d" % n + BODY[10:],
                              ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT, MsgId=msgid(n)), pmo)
                conn.commit()
                done = end
            except ibmmq.MQMIError as exc:
                if exc.reason not in self.BROKEN:
                    raise
                conn, queue = self._connect()
                if self._committed(queue, end - 1):
                    self.skipped += 1
                    done = end
                else:
                    self.replayed += 1

    def _connect(self):
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        while True:
            try:
                conn = ibmmq.connect(self.qm.name, self.qm.channel, self.qm.conn_name)
                return conn, ibmmq.Queue(conn, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE)
            except ibmmq.MQMIError as exc:
                if exc.reason not in self.BROKEN:
                    raise
                time.sleep(0.2)   # the queue manager is restarting

    def _committed(self, queue, n: int) -> bool:
        ibmmq, CMQC = self.ibmmq, self.ibmmq.CMQC
        gmo = ibmmq.GMO(Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_NO_WAIT,
                        MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
        try:
            queue.get(None, ibmmq.MD(MsgId=msgid(n)), gmo)
            return True
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return False
            raise


def msgid(n: int) -> bytes:
    return b"BACKLOG-%016d" % n


def kill_while(running, qm, chooser: random.Random, kills: int) -> int:
    """SIGKILL and restart the queue manager `kills` times at random moments while
    `running()`; the number of kills made."""
    made = 0
    while made < kills and running():
        deadline = time.monotonic() + chooser.uniform(3.0, 15.0)
        while time.monotonic() < deadline and running():
            time.sleep(0.1)
        if not running():
            break
        qm.kill()
        made += 1
        time.sleep(chooser.uniform(0.3, 2.0))
        qm.start(timeout=600)
    return made


def drain(qm, work: Path, chooser: random.Random, kills: int, batch: int) -> tuple[int, int]:
    from pyspark.sql import SparkSession

    import spark_mq
    spark = (SparkSession.builder.master("local[2]").appName("backlog-chaos")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "2").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark_mq.register(spark)
    made = restarts = 0
    try:
        while True:
            query = (spark.readStream.format("mq")
                     .options(queueManager=qm.name, connName=qm.conn_name, channel=qm.channel,
                              transport="embedded", queue=QUEUE, waitIntervalMs="0",
                              maxMessagesPerTrigger=str(batch))
                     .load().selectExpr("cast(cast(substring(payload, 1, 10) as string) as long) as n")
                     .writeStream.format("parquet").option("path", str(work / "out"))
                     .option("checkpointLocation", str(work / "checkpoint"))
                     .trigger(availableNow=True).start())
            made += kill_while(lambda q=query: q.isActive, qm, chooser, kills - made)
            query.awaitTermination()
            if query.exception() is None:
                return made, restarts
            restarts += 1
            print(f"query failed, started again on its checkpoint: "
                  f"{str(query.exception()).splitlines()[0]}", flush=True)
            if restarts > 10:
                raise RuntimeError("the query failed more than 10 times")
    finally:
        spark.stop()


def count_numbers(ibmmq, qm, out: Path, count: int) -> tuple[int, int, int]:
    """(lost, doubled, left on the queue): the numbers in the committed Parquet files."""
    import pyarrow.parquet as pq
    files: set[str] = set()
    for log in sorted((out / "_spark_metadata").glob("[0-9]*")):
        for line in log.read_text().splitlines()[1:]:   # first line: the log version
            entry = json.loads(line)
            name = entry["path"].removeprefix("file://")
            (files.add if entry.get("action") == "add" else files.discard)(name)
    seen = bytearray(count)
    for name in sorted(files):
        for n in pq.read_table(name, columns=["n"]).column("n").to_pylist():
            seen[n] = min(seen[n] + 1, 255)
    lost, doubled = seen.count(0), sum(1 for times in seen if times > 1)
    conn = ibmmq.connect(qm.name, qm.channel, qm.conn_name)
    left = ibmmq.Queue(conn, QUEUE, ibmmq.CMQC.MQOO_INQUIRE).inquire(
        ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH)
    conn.disconnect()
    return lost, doubled, left


if __name__ == "__main__":
    sys.exit(main())
