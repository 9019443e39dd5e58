"""Chaos runs: a real pipeline in a child process, one fault at a random moment, restarts on
the same checkpoint until the pipeline completes, then every message counted.

A run is fully described by (pipeline, fault, seed): the seed decides the data, the moment
of the fault and which process it hits, so a failing run is reproduced from the line it
prints. The moment is random but never later than the start of the run's next-to-last
micro-batch (its offsets file is watched), so the fault lands mid-run however fast the
machine: `kills` counts the faults that landed, and the tests assert it. Pipelines:

    queue_to_queue     queue -> reader (exactlyOnce) -> writer (exactlyOnce) -> queue
    queue_to_parquet   queue -> reader (exactlyOnce) -> Parquet file sink
    files_to_queue     JSON files -> writer (exactlyOnce) -> queue

The input carries a typed property (`n`, INT32, the row's identity) and a string property
(`tag`) on every message; the queue inputs also hold message groups and a few poison
messages (BackoutCount at the queue's BOTHRESH), which must reach the backout queue exactly
once and nowhere else. Faults:

    kill_tree      SIGKILL of the driver's whole process tree (driver, JVM, daemon, workers)
    kill_driver    SIGKILL of the Python driver and its JVM only: the workers race on
    kill_worker    SIGKILL of one Python worker: its task fails, the query fails
    stop_query     query.stop() in the middle of a batch
    task_retries   rows fail their task's first attempt; Spark (local[2,3]) retries it
    qm_restart     SIGKILL of the queue manager under the running query (after its first
                   batch), then a restart 0.5-3 s later: the query must ride it out
                   (reconnect with back-off) and complete without a restart of its own
    unwritable_checkpoint  the checkpoint's commit log made unwritable (a full or read-only
                   file system: its folder replaced by a file) mid-run; the query fails
                   when it records a batch, the folder comes back, the query restarts
    freeze_driver  SIGSTOP of the driver's whole tree (a host that stopped answering) while a
                   new driver starts on the same checkpoint; the queue manager ends the
                   frozen connections after its heartbeat interval (5 s here), the new
                   driver waits for that before it removes or replays anything; the frozen
                   tree is killed at the end
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from spark_mq.embedded import EmbeddedQueueManager
from support import children_of, committed_parquet_rows, drain, freeze_tree, kill_tree, process_tree

PIPELINES = ("queue_to_queue", "queue_to_parquet", "files_to_queue")
QUEUE_PIPELINES = PIPELINES[:2]          # the ones that read a queue
FAULTS = ("kill_tree", "kill_driver", "kill_worker", "stop_query", "task_retries", "qm_restart",
          "freeze_driver", "unwritable_checkpoint")
HEARTBEAT_SECONDS = 5.0
BATCH = 40                  # messages (or files of 40 rows) a micro-batch takes
#: enough for five micro-batches: the power is in the fault's random moment and the count
#: afterwards, and every batch more is seconds more per run, not another kind of fault
MESSAGES = 200
JOB = str(Path(__file__).with_name("job.py"))
MQSC = """
DEFINE QLOCAL(CHAOS.IN) BOTHRESH(3) BOQNAME(CHAOS.BOQ) MAXDEPTH(999999999) REPLACE
DEFINE QLOCAL(CHAOS.BOQ) MAXDEPTH(999999999) REPLACE
DEFINE QLOCAL(CHAOS.OUT) MAXDEPTH(999999999) REPLACE
DEFINE QLOCAL(SPARK.MQ.WRITER.STATE) MAXDEPTH(999999999) REPLACE
DEFINE QLOCAL(SPARK.MQ.READER.STATE) MAXDEPTH(999999999) REPLACE
"""


@dataclass
class Outcome:
    pipeline: str
    fault: str
    seed: int
    messages: int
    kills: int = 0
    restarts: int = 0
    lost: list[int] = field(default_factory=list)
    doubled: list[int] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)     # properties or poison handling
    read_mode: str = "driver"

    @property
    def ok(self) -> bool:
        return not (self.lost or self.doubled or self.wrong)

    def line(self) -> str:
        mode = "" if self.read_mode == "driver" else f" readMode={self.read_mode}"
        return (f"chaos pipeline={self.pipeline}{mode} fault={self.fault} seed={self.seed}: "
                f"messages={self.messages} kills={self.kills} restarts={self.restarts} "
                f"lost={len(self.lost)} doubled={len(self.doubled)} wrong={len(self.wrong)}"
                + (f" (lost {self.lost[:10]}, doubled {self.doubled[:10]}, {self.wrong[:3]})"
                   if not self.ok else ""))


class ChaosRun:
    def __init__(self, work: Path, pipeline: str, fault: str, seed: int, messages: int = MESSAGES,
                 read_mode: str = "driver"):
        self.work, self.pipeline, self.fault, self.seed = work, pipeline, fault, seed
        self.read_mode = read_mode
        self.random = random.Random(seed)
        self.messages = messages
        self.poison: list[int] = []          # set when the input is loaded
        self.qm = EmbeddedQueueManager(str(work / "qm"), name="QM1", mqsc=MQSC,
                                       heartbeat_interval=HEARTBEAT_SECONDS)
        self.frozen: list[int] = []
        self.endings: list[str] = []          # how each attempt ended, for a failure's message
        self.outcome = Outcome(pipeline, fault, seed, messages, read_mode=read_mode)
        self.log = open(work / "jobs.log", "a")

    # --- the run ----------------------------------------------------------------------------
    def run(self, max_restarts: int = 5) -> Outcome:
        self.qm.start()
        try:
            self._load_input()
            process = self._start_job(fault=self.fault)
            self._inject(process)
            result = "frozen" if self.frozen else self._wait(process)
            self._restore_checkpoint()
            while result != "done":
                self.outcome.restarts += 1
                if self.outcome.restarts > max_restarts:
                    raise AssertionError(f"{self.outcome.line()}: did not complete after "
                                         f"{max_restarts} restarts ({'; '.join(self.endings)}); "
                                         f"see {self.work / 'jobs.log'}")
                result = self._wait(self._start_job(fault=None))
            self._kill_frozen()
            self._count()
        finally:
            self._kill_frozen()
            self.qm.stop()
            self.log.close()
        return self.outcome

    def _start_job(self, fault: str | None) -> subprocess.Popen[str]:
        connection = {"connName": self.qm.conn_name, "queueManager": "QM1",
                      "channel": "DEV.APP.SVRCONN", "transport": "embedded"}
        retries = fault == "task_retries"
        arguments = {
            "pipeline": self.pipeline, "connection": connection, "seed": self.seed,
            "read_mode": self.read_mode,
            "master": "local[2,3]" if retries else "local[2]",
            # ~4 rows of the 200 fail their first attempt (and some row does for 98% of seeds)
            "fail_probability": 0.02 if retries else 0.0,
            "input": "CHAOS.IN", "output": str(self.work / "out") if self.pipeline ==
            "queue_to_parquet" else "CHAOS.OUT",
            "source": str(self.work / "files"), "batch": BATCH, "commit_every": 7,
            "checkpoint": str(self.work / "checkpoint"), "work": str(self.work),
        }
        env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
        self.log.write(f"\n=== start (fault={fault}) ===\n")
        self.log.flush()
        return subprocess.Popen([sys.executable, JOB, json.dumps(arguments)], text=True,
                                stdout=subprocess.PIPE, stderr=self.log, env=env,
                                start_new_session=True)

    def _wait(self, process: subprocess.Popen[str], timeout: float = 300) -> str:
        """'done' when the job completed, otherwise why it ended."""
        try:
            output, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            output, _ = process.communicate()
            self.log.write(output or "")
            self.endings.append("timed out")
            return "timed out"
        self.log.write(output or "")
        results = [json.loads(line[7:]) for line in (output or "").splitlines()
                   if line.startswith("RESULT ")]
        if process.returncode == 0 and results and results[-1].get("exception") is None:
            return "done"
        error = str(results[-1].get("exception") or "")[:300] if results else ""
        self.endings.append(f"exit {process.returncode} {error}".strip())
        return f"exit {process.returncode}"

    # --- faults -----------------------------------------------------------------------------
    def _inject(self, process: subprocess.Popen[str]) -> None:
        if self.fault == "task_retries":
            return                          # the job's own rows fail their first attempts
        assert process.stdout is not None
        line = process.stdout.readline()    # STARTED (or the end of a job that failed early)
        self.log.write(line)
        if self.fault == "qm_restart":
            self._await_first_batch(process)
            self._sleep_within_run(process, self.random.uniform(0.0, 3.0))
        else:   # after a random part of the run: the batches are under way by then
            self._sleep_within_run(process, self.random.uniform(1.0, 8.0))
        if process.poll() is not None:
            return                          # it finished first: nothing to hit
        if self.fault == "kill_tree":
            kill_tree(process.pid)
        elif self.fault == "kill_driver":
            jvms = children_of(process.pid)
            for pid in [process.pid, *jvms]:
                _kill(pid)
        elif self.fault == "kill_worker":
            if not self._kill_a_worker(process.pid):
                return
        elif self.fault == "stop_query":
            (self.work / "stop").touch()
            self.outcome.kills += 1
            return                          # the job stops itself and exits
        elif self.fault == "freeze_driver":
            self.frozen = freeze_tree(process.pid)
        elif self.fault == "unwritable_checkpoint":
            commits = self.work / "checkpoint" / "commits"
            self._await(process, commits.is_dir)
            if not commits.is_dir():
                return
            commits.rename(commits.with_name("commits.away"))
            commits.write_text("not a folder: nothing can be written under it\n")
        elif self.fault == "qm_restart":
            self.qm.kill()
            time.sleep(self.random.uniform(0.5, 3.0))
            self.qm.start()
            self.outcome.kills += 1
            return
        self.outcome.kills += 1

    def _sleep_within_run(self, process: subprocess.Popen[str], seconds: float) -> None:
        """For `seconds`, but no later than the start of the run's next-to-last batch: a fast
        run must not finish before its fault (the test asserts that the fault landed)."""
        late = self.work / "checkpoint" / "offsets" / str(max(0, -(-self.messages // BATCH) - 2))
        deadline = time.monotonic() + seconds
        self._await(process, lambda: late.exists() or time.monotonic() >= deadline)

    @staticmethod
    def _await(process: subprocess.Popen[str], ready: Callable[[], bool]) -> None:
        while not ready() and process.poll() is None:
            time.sleep(0.02)

    def _await_first_batch(self, process: subprocess.Popen[str], timeout: float = 120) -> None:
        """Until the query has committed a batch: its connections are made and checked, so a
        queue-manager restart from now on is one a running query must ride out."""
        first = self.work / "checkpoint" / "commits" / "0"
        deadline = time.monotonic() + timeout
        while not first.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)

    def _restore_checkpoint(self) -> None:
        away = self.work / "checkpoint" / "commits.away"
        if away.is_dir():
            (self.work / "checkpoint" / "commits").unlink(missing_ok=True)
            away.rename(self.work / "checkpoint" / "commits")

    def _kill_frozen(self) -> None:
        for pid in self.frozen:
            _kill(pid)
        self.frozen = []

    def _kill_a_worker(self, driver: int) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            workers = [pid for pid in process_tree(driver)
                       if _is_worker(pid) and any(_is_worker(p) for p in [_parent(pid)])]
            if workers:
                _kill(self.random.choice(sorted(workers)))
                return True
            time.sleep(0.05)
        return False

    # --- data -------------------------------------------------------------------------------
    def _load_input(self) -> None:
        if self.pipeline == "files_to_queue":
            source = self.work / "files"
            source.mkdir(exist_ok=True)
            per_file = 40
            for start in range(0, self.messages, per_file):
                with open(source / f"part-{start:05d}.json", "w") as handle:
                    for n in range(start, min(start + per_file, self.messages)):
                        handle.write(json.dumps({"n": n, "tag": _tag(n), "payload": f"m{n}"})
                                     + "\n")
            return
        import ibmmq
        conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", self.qm.conn_name)
        try:
            queue = ibmmq.Queue(conn, "CHAOS.IN", ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_SHARED)
            ids: dict[int, bytes] = {}
            n = 0
            while n < self.messages:
                group = self.random.random() < 0.1 and n + 3 <= self.messages
                size = 3 if group else 1
                for i in range(size):
                    msg_id = _put(ibmmq, conn, queue, n + i, in_group=group, last=i == size - 1)
                    if not group:
                        ids[n + i] = msg_id
                n += size
            conn.commit()
            self.poison = sorted(self.random.sample(sorted(ids), 3))
            for n in self.poison:
                _make_poison(ibmmq, conn, queue, ids[n], times=3)
            queue.close()
        finally:
            conn.disconnect()

    def _count(self) -> None:
        expected = [n for n in range(self.messages) if n not in self.poison]
        import ibmmq
        conn = ibmmq.connect("QM1", "DEV.APP.SVRCONN", self.qm.conn_name)
        try:
            if self.pipeline == "queue_to_parquet":
                rows = committed_parquet_rows(self.work / "out")
                seen = [row["n"] for row in rows]
                wrong = [f"row {row['n']}: tag {row['tag']!r}" for row in rows
                         if row["tag"] != _tag(row["n"]) or row["payload"] != f"m{row['n']}".encode()]
            else:
                messages = [(body, props) for _, body, props in drain(conn, "CHAOS.OUT")]
                seen = [props.get("n") for _, props in messages]
                wrong = [f"message {props.get('n')}: {props}" for body, props in messages
                         if props.get("tag") != _tag(props.get("n"))
                         or body != f"m{props.get('n')}".encode()]
            if self.pipeline != "files_to_queue":
                poisoned = sorted(props.get("n") for _, _, props in drain(conn, "CHAOS.BOQ"))
                if poisoned != self.poison:
                    wrong.append(f"backout queue holds {poisoned}, expected {self.poison}")
                left = drain(conn, "CHAOS.IN")
                if left:
                    wrong.append(f"{len(left)} messages left on the input queue")
                state = drain(conn, "SPARK.MQ.READER.STATE")
                if state:
                    wrong.append(f"{len(state)} claims or records left on the reader's state queue")
        finally:
            conn.disconnect()
        if self.fault == "qm_restart" and self.outcome.restarts:
            wrong.append("the running query did not ride out the queue-manager restart")
        self.outcome.lost = sorted(set(expected) - set(seen))
        self.outcome.doubled = sorted({n for n in seen if seen.count(n) > 1})
        self.outcome.wrong = wrong


def _tag(n: int | None) -> str:
    return f"tag-{n}-{'x' * ((n or 0) % 7)}"


def _put(ibmmq, conn, queue, n: int, in_group: bool, last: bool) -> bytes:
    C = ibmmq.CMQC
    handle = ibmmq.MessageHandle(conn)
    handle.properties.set("n", n, property_type=C.MQTYPE_INT32, value_length=4)
    tag = _tag(n)
    handle.properties.set("tag", tag, property_type=C.MQTYPE_STRING, value_length=len(tag))
    md = ibmmq.MD(Persistence=C.MQPER_PERSISTENT, Format=C.MQFMT_STRING)
    options = C.MQPMO_SYNCPOINT
    if in_group:
        md.Version = C.MQMD_VERSION_2
        md.MsgFlags = C.MQMF_LAST_MSG_IN_GROUP if last else C.MQMF_MSG_IN_GROUP
        options |= C.MQPMO_LOGICAL_ORDER
    pmo = ibmmq.PMO(Options=options, OriginalMsgHandle=handle.msg_handle)
    queue.put(f"m{n}".encode(), md, pmo)
    return md.MsgId


def _make_poison(ibmmq, conn, queue, msg_id: bytes, times: int) -> None:
    """Get the message under syncpoint and back out `times` times: its BackoutCount reaches
    the queue's BOTHRESH, so the reader must treat it as poison."""
    C = ibmmq.CMQC
    for _ in range(times):
        md = ibmmq.MD(MsgId=msg_id)
        gmo = ibmmq.GMO(Options=C.MQGMO_SYNCPOINT | C.MQGMO_NO_WAIT,
                        MatchOptions=C.MQMO_MATCH_MSG_ID)
        queue.get(None, md, gmo)
        conn.backout()


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def _is_worker(pid: int) -> bool:
    """pyspark's daemon and the workers it forks share the daemon's command line."""
    return "pyspark.daemon" in _cmdline(pid)
