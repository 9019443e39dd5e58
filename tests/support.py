"""Helpers shared by the tests (no tests in here): queue manager options, putting, draining
and counting messages, Spark jobs through spark-submit, and killing process trees the way a
crash does.

`ibmmq` is imported inside the helpers: a child process that imports this module chooses
its transport first.

Killing: `os.killpg` on a Spark driver started in its own session does NOT reach the Python
workers (pyspark's daemon puts each worker in a process group of its own with
`os.setpgid(0, 0)`). `kill_tree` finds the tree through /proc (parent links), freezes it with
SIGSTOP so that nothing in it runs on (a worker would otherwise race to commit what it
holds), and then kills it."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pyspark

import jvm_profile


@contextlib.contextmanager
def ibm_otel_hooks_off(*hooks: str):
    """IBM's OpenTelemetry hooks (ibmmq/mqotel.py, `OTelFunctions`) off for the calls inside,
    where ibmmq 2.1.2's own hook fails before any call reaches a queue manager, real or
    embedded. `put_trace_before` on a put whose MQMD.Format is MQHRF2: it looks for the str
    '<traceparent>' in the bytes RFH2.unpack gives (TypeError). `get_trace_before` on an MQCB
    with MQGMO_NO_PROPERTIES: it makes a MessageHandle from the int hconn (AttributeError); and
    on an MQGET with MQGMO_NO_PROPERTIES and an MQGMO below version 4: it asks for
    MQGMO_PROPERTIES_IN_HANDLE and sets a MsgHandle the queue manager must ignore in that
    version (MQRC_HMSG_ERROR, as from IBM MQ). tests/embedded/test_otel.py pins all three: when
    IBM fixes one, its test there fails and its use here can go."""
    from ibmmq import OTelFunctions
    saved = {name: getattr(OTelFunctions, name) for name in hooks}
    for name in hooks:
        setattr(OTelFunctions, name, None)
    try:
        yield
    finally:
        for name, hook in saved.items():
            setattr(OTelFunctions, name, hook)


def reader_options(qm, queue: str, **extra) -> dict:
    options = {"queueManager": qm.name, "connName": qm.conn_name, "channel": qm.channel,
               "queue": queue, "transport": "embedded"}
    options.update({k: str(v) for k, v in extra.items()})
    return options


def put_messages(conn, queue: str, payloads, properties=None, persistent: bool = True,
                 md_fields=None) -> list[bytes]:
    """Put each payload (with optional per-message property dicts); returns the MsgIds."""
    import ibmmq
    from ibmmq import CMQC
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


def drain_payloads(conn, queue: str) -> list[tuple[bytes, object]]:
    """Get every message off a queue: [(payload, md)] (properties left out of the payload)."""
    import ibmmq
    from ibmmq import CMQC
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


def mq_options(qm, **extra) -> dict:
    options = {"connName": qm.conn_name, "queueManager": qm.name, "channel": qm.channel}
    options.update({k: str(v) for k, v in extra.items()})
    return options


def drain(conn, queue: str, force_rfh2: bool = False, wait_ms: int = 0) -> list[tuple]:
    """Every message on a queue, destructively: (md, body, {property: value}); waits up to
    `wait_ms` for each next message."""
    import ibmmq
    from ibmmq import CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    found = []
    try:
        while True:
            props = ibmmq.MessageHandle(conn)
            md = ibmmq.MD()
            options = (CMQC.MQGMO_WAIT | CMQC.MQGMO_COMPLETE_MSG
                       | (CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2 if force_rfh2
                          else CMQC.MQGMO_PROPERTIES_IN_HANDLE))
            gmo = ibmmq.GMO(Options=options, Version=CMQC.MQGMO_VERSION_4, WaitInterval=wait_ms,
                            MsgHandle=props.msg_handle)
            try:
                body = handle.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return found
                raise
            found.append((md, body, {} if force_rfh2 else read_properties(props)))
    finally:
        handle.close()


def read_properties(handle) -> dict:
    import ibmmq

    from spark_mq.mq.properties import read_all
    return read_all(handle, ibmmq)


def depth(conn, queue: str) -> int:
    import ibmmq
    from ibmmq import CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INQUIRE)
    try:
        return handle.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        handle.close()


def text(value: bytes) -> str:
    return value.rstrip(b"\0 ").decode()


def write_json(path, numbers) -> None:
    with open(path, "w") as handle:
        for n in numbers:
            handle.write(json.dumps({"payload": f"row-{n}", "n": n}) + "\n")


def lose_commit(checkpoint, batch: int) -> None:
    """Delete a batch's commit-log entry (and its checksum file), as a crash before it would."""
    for name in (str(batch), f".{batch}.crc"):
        path = checkpoint / "commits" / name
        if path.exists():
            os.remove(path)


def numbers_on(conn, queue: str) -> list[int]:
    return sorted(props["n"] for _, _, props in drain(conn, queue))


def poison_udf(flag: str, poison_row: int, options: dict, queue: str, first_attempt_only: bool):
    """A UDF making each row's 2 KiB payload that fails at `poison_row` once (the first
    attempt, or until the flag file exists), after recording how many messages were already
    committed on the queue. (The payload is big so that the UDF worker's output buffer
    flushes the rows before the poison row to the writer.)"""
    from pyspark.sql import functions as F

    def check(n):
        import json as _json
        import os as _os
        import time as _time
        payload = f"row-{n}".ljust(2048, ".")
        if n != poison_row:
            return payload
        if first_attempt_only:
            from pyspark import TaskContext
            if TaskContext.get().attemptNumber() > 0:
                return payload
        elif _os.path.exists(flag):
            return payload
        from spark_mq.mq.connecting import connect as _connect
        from spark_mq.mq.connecting import load_ibmmq as _load
        from spark_mq.options import parse_connection as _parse
        module = _load("auto")
        qmgr = _connect(_parse(options))
        handle = module.Queue(qmgr, queue, module.CMQC.MQOO_INQUIRE)
        # The UDF runs ahead of the writer (its input is pushed eagerly): give the writer
        # time to commit the chunks before this row, so that the failure is mid-way.
        deadline = _time.monotonic() + 60
        committed = handle.inquire(module.CMQC.MQIA_CURRENT_Q_DEPTH)
        while committed == 0 and _time.monotonic() < deadline:
            _time.sleep(0.1)
            committed = handle.inquire(module.CMQC.MQIA_CURRENT_Q_DEPTH)
        handle.close()
        qmgr.disconnect()
        with open(flag, "w") as out:
            out.write(_json.dumps({"depth": committed}))
        raise RuntimeError(f"poison row {n}")

    return F.udf(check, "string")


def hold_udf(reached: str, hold_row: int):
    """8 KiB payloads (10 rows fill the JVM's 64 KiB socket buffer to the writer); at
    `hold_row` (first time only) write the flag file and block until the task is cancelled
    (at most a minute)."""
    from pyspark.sql import functions as F

    def hold(n):
        import os as _os
        import time as _time
        if n == hold_row and not _os.path.exists(reached):
            open(reached, "w").close()
            deadline = _time.monotonic() + 60
            while _time.monotonic() < deadline:
                _time.sleep(0.1)
        return f"row-{n}".ljust(8192, ".")

    return F.udf(hold, "string")


def wait_for(condition, seconds: float) -> None:
    import time
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def put_group(conn, queue, payloads, complete=True):
    import ibmmq
    from ibmmq import CMQC
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    try:
        for i, payload in enumerate(payloads):
            md = ibmmq.MD()
            md.Persistence = CMQC.MQPER_PERSISTENT
            last = complete and i == len(payloads) - 1
            md.MsgFlags = CMQC.MQMF_LAST_MSG_IN_GROUP if last else CMQC.MQMF_MSG_IN_GROUP
            pmo = ibmmq.PMO()
            pmo.Options = CMQC.MQPMO_LOGICAL_ORDER | CMQC.MQPMO_SYNCPOINT
            q.put(payload, md, pmo)
        conn.commit()
    finally:
        try:
            q.close()
        except ibmmq.MQMIError as exc:
            if exc.reason != CMQC.MQRC_INCOMPLETE_GROUP:  # expected for an unfinished group
                raise


def put_reference_pair(conn, queue, payload: bytes, properties: dict) -> None:
    """The writer's reference/data pattern (spark_mq.mq.message), put by hand."""
    import ibmmq
    from ibmmq import CMQC

    from spark_mq.mq.message import DATA_FORMAT, REFERENCE_FORMAT
    q = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    group_id = b"GRP-" + bytes(range(20))
    try:
        handle = ibmmq.MessageHandle(conn)
        for name, (value, mq_type, length) in properties.items():
            handle.properties.set(name, value, property_type=mq_type, value_length=length)
        handle.properties.set("SparkMQDataLength", len(payload), property_type=CMQC.MQTYPE_INT64,
                              value_length=8)
        handle.properties.set("SparkMQDataGroupId", group_id, property_type=CMQC.MQTYPE_BYTE_STRING,
                              value_length=24)
        md = ibmmq.MD()
        md.Format = REFERENCE_FORMAT
        md.Persistence = CMQC.MQPER_PERSISTENT
        pmo = ibmmq.PMO()
        pmo.Options = CMQC.MQPMO_SYNCPOINT
        pmo.OriginalMsgHandle = handle.msg_handle
        q.put(b"", md, pmo)
        md = ibmmq.MD()
        md.Format = DATA_FORMAT
        md.GroupId = group_id
        md.MsgSeqNumber = 1
        md.MsgFlags = CMQC.MQMF_SEGMENTATION_ALLOWED | CMQC.MQMF_LAST_MSG_IN_GROUP
        md.Persistence = CMQC.MQPER_PERSISTENT
        pmo = ibmmq.PMO()
        pmo.Options = CMQC.MQPMO_SYNCPOINT
        q.put(payload, md, pmo)
        conn.commit()
    finally:
        q.close()


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name may hold spaces and parentheses: fields follow the last ')'
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid:
            found.append(int(entry.name))
    return found


def process_tree(pid: int) -> list[int]:
    """pid and every process descended from it."""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending.extend(children_of(current))
    return tree


def _signal_all(pids, sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def freeze_tree(pid: int) -> list[int]:
    """SIGSTOP pid and all its descendants; returns them."""
    frozen: list[int] = []
    while True:       # until no new process appears (a fork may be under way)
        new = [p for p in process_tree(pid) if p not in frozen]
        if not new:
            return frozen
        _signal_all(new, signal.SIGSTOP)
        frozen.extend(new)


def kill_tree(pid: int) -> list[int]:
    """SIGKILL pid and all its descendants at one instant (frozen first); returns them."""
    frozen = freeze_tree(pid)
    _signal_all(frozen, signal.SIGKILL)
    return frozen


PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOBS = os.path.join(PROJECT_ROOT, "jobs")
SPARK_HOME = os.path.dirname(pyspark.__file__)
SPARK_SUBMIT = os.path.join(SPARK_HOME, "bin", "spark-submit")
SPARK_CLASS = os.path.join(SPARK_HOME, "bin", "spark-class")
LEAN_CONF = {
    "spark.ui.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.memory": "1g",
}


def job_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYSPARK_PYTHON"] = sys.executable
    env["PYSPARK_DRIVER_PYTHON"] = sys.executable
    env["SPARK_HOME"] = SPARK_HOME
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    # No PYTHONPATH and no --py-files: the jobs import spark_mq (and spark_mq.jobs) from the
    # installed package (`pip install -e .`), in the driver and in PYSPARK_PYTHON's workers.
    return env


def spark_submit_command(job: str, *args: str, master: str = "local[2]",
                         submit_args: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """The spark-submit command line and environment that run jobs/<job> args..."""
    command = [SPARK_SUBMIT, "--master", master]
    for key, value in LEAN_CONF.items():
        command += ["--conf", f"{key}={value}"]
    command += list(submit_args)
    command += [os.path.join(JOBS, job), *args]
    return command, job_env()


def spark_submit(job: str, *args: str, master: str = "local[2]", submit_args: tuple[str, ...] = (),
                 timeout: float = 300) -> subprocess.CompletedProcess:
    """spark-submit jobs/<job> args..., returning the finished process (output as text)."""
    command, env = spark_submit_command(job, *args, master=master, submit_args=submit_args)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=PROJECT_ROOT)


def python_job(job: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """python jobs/<job> args... (the job starts its own local Spark)."""
    return subprocess.run([sys.executable, os.path.join(JOBS, job), *args], capture_output=True, text=True,
                          timeout=timeout, env=job_env(), cwd=PROJECT_ROOT)


def explain(process: subprocess.CompletedProcess) -> str:
    """What a failed job printed, for assertion messages."""
    return (f"exit {process.returncode}\n--- stdout ---\n{process.stdout[-6000:]}"
            f"\n--- stderr ---\n{process.stderr[-6000:]}")


def connection_args(qm) -> list[str]:
    return ["--conn-name", qm.conn_name, "--queue-manager", qm.name, "--channel", qm.channel,
            "--transport", "embedded"]


def put_texts(conn, queue: str, texts, **md_fields) -> list[bytes]:
    """Persistent string messages under syncpoint, committed; returns their MsgIds."""
    import ibmmq
    handle = ibmmq.Queue(conn, queue, ibmmq.CMQC.MQOO_OUTPUT)
    ids = []
    try:
        for text in texts:
            md = ibmmq.MD(Format=ibmmq.CMQC.MQFMT_STRING, Persistence=ibmmq.CMQC.MQPER_PERSISTENT,
                          **md_fields)
            pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT | ibmmq.CMQC.MQPMO_NEW_MSG_ID)
            handle.put(text.encode(), md, pmo)
            ids.append(md.MsgId)
        conn.commit()
    finally:
        handle.close()
    return ids


def committed_parquet_rows(path) -> list[dict]:
    """Rows of the files Spark's file sink committed (listed in _spark_metadata), as Spark
    itself reads them: files a killed batch left half-written are not among them."""
    import pyarrow.parquet as pq
    files: set[str] = set()
    for log in sorted(Path(path, "_spark_metadata").glob("[0-9]*")):
        for line in log.read_text().splitlines()[1:]:       # first line: the log version
            entry = json.loads(line)
            name = entry["path"].removeprefix("file://")
            if entry.get("action") == "add":
                files.add(name)
            elif entry.get("action") == "delete":
                files.discard(name)
    return [row for name in sorted(files) for row in pq.read_table(name).to_pylist()]


def activated_environment() -> dict[str, str]:
    """A minimal environment as `. .venv/bin/activate` leaves it: this environment's bin
    first on PATH, then the system's (where java is), nothing else of this process's."""
    venv_bin = os.path.dirname(sys.executable)
    system = ["/usr/local/bin", "/usr/bin", "/bin"]
    java = shutil.which("java")
    if java and os.path.dirname(java) not in system:
        system.append(os.path.dirname(java))
    env = {"PATH": os.pathsep.join([venv_bin, *system]), "VIRTUAL_ENV": sys.prefix,
           "HOME": os.environ.get("HOME", "/tmp")}
    # and the suite's JVM profile (tests/jvm_profile.py: JIT tiers and class sharing only)
    for name in ("JAVA_HOME", "LANG", "LC_ALL", "TMPDIR", *jvm_profile.VARIABLES):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def mqsc_one(text: str):
    """The one command an MQSC text parses into (the parser tests)."""
    from spark_mq.embedded.server.admin.mqsc import parse_mqsc
    commands = parse_mqsc(text)
    assert len(commands) == 1, commands
    return commands[0]


def mqsc_error(text: str):
    """The MQSCError an MQSC text is refused with (the parser tests)."""
    import pytest

    from spark_mq.embedded.server.admin.mqsc import parse_mqsc
    from spark_mq.embedded.server.core.mqsc_command import MQSCError
    with pytest.raises(MQSCError) as info:
        parse_mqsc(text)
    return info.value


# --- event messages (SYSTEM.ADMIN.*.EVENT) ------------------------------------------------------
def parse_event(data: bytes) -> tuple[object, dict[int, object]]:
    """(MQCFH, {parameter: value}) of an event message, read with ibmmq's own PCF classes:
    strings as text without their padding, byte strings as bytes, lists as lists, an MQCFGR
    group as a dict of its members. (ibmmq.PCFExecute.unpack refuses a header whose CompCode
    is not MQCC_OK, and every event message's is MQCC_WARNING, as IBM MQ sends them.)"""
    import ibmmq
    from ibmmq import CMQCFC
    header = ibmmq.CFH()
    header.unpack(data[:CMQCFC.MQCFH_STRUC_LENGTH])
    values, cursor = _event_parameters(data, CMQCFC.MQCFH_STRUC_LENGTH, header.ParameterCount)
    assert cursor == len(data), "bytes after the event's last parameter"
    return header, values


def _event_parameters(data: bytes, cursor: int, count: int) -> tuple[dict[int, object], int]:
    import struct

    import ibmmq
    from ibmmq import CMQCFC
    values: dict[int, object] = {}
    for _ in range(count):
        kind, length = struct.unpack_from("=2i", data, cursor)
        if kind == CMQCFC.MQCFT_GROUP:
            parameter, members = struct.unpack_from("=2i", data, cursor + 8)
            values[parameter], cursor = _event_parameters(data, cursor + length, members)
            continue
        if kind == CMQCFC.MQCFT_INTEGER:
            parameter = ibmmq.CFIN()
            parameter.unpack(data[cursor:cursor + length])
            values[parameter.Parameter] = parameter.Value
        elif kind == CMQCFC.MQCFT_STRING:
            fixed = ibmmq.CFST()
            fixed.unpack(data[cursor:cursor + CMQCFC.MQCFST_STRUC_LENGTH_FIXED])
            parameter = ibmmq.CFST(StringLength=fixed.StringLength)
            parameter.unpack(data[cursor:cursor + length])
            values[parameter.Parameter] = parameter.String[:parameter.StringLength].decode().rstrip()
        elif kind == CMQCFC.MQCFT_BYTE_STRING:
            identifier, size = struct.unpack_from("=2i", data, cursor + 8)
            values[identifier] = data[cursor + 16:cursor + 16 + size]
        elif kind == CMQCFC.MQCFT_INTEGER_LIST:
            identifier, size = struct.unpack_from("=2i", data, cursor + 8)
            values[identifier] = list(struct.unpack_from(f"={size}i", data, cursor + 16))
        elif kind == CMQCFC.MQCFT_STRING_LIST:
            identifier, _, size, width = struct.unpack_from("=4i", data, cursor + 8)
            raw = data[cursor + 24:cursor + 24 + size * width]
            values[identifier] = [raw[i:i + width].decode().rstrip() for i in range(0, len(raw), width)]
        else:
            raise AssertionError(f"an event parameter of type {kind}")
        cursor += length
    return values, cursor


def next_event(conn, queue: str, wait_ms: int = 0):
    """The next event message on `queue`, got destructively (waiting up to `wait_ms`): (MQMD,
    MQCFH, parameters), or None when there is none."""
    import ibmmq
    from ibmmq import CMQC
    handle = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD()
        options = CMQC.MQGMO_NO_SYNCPOINT | (CMQC.MQGMO_WAIT if wait_ms else CMQC.MQGMO_NO_WAIT)
        try:
            data = handle.get(None, md, ibmmq.GMO(Options=options, WaitInterval=wait_ms))
        except ibmmq.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                return None
            raise
        return (md, *parse_event(data))
    finally:
        handle.close()


def events_on(conn, queue: str) -> list[tuple]:
    """Every event message waiting on `queue`, got destructively: [(MQMD, MQCFH, parameters)]."""
    found = []
    while (event := next_event(conn, queue)) is not None:
        found.append(event)
    return found


CONFIG_EVENTS = "SYSTEM.ADMIN.CONFIG.EVENT"


def config_event_client(manager):
    """CONFIGEV switched on and a client connection to `manager` whose config event queue
    holds nothing yet (what the switch's refresh brought is taken off); disconnected after."""
    import ibmmq
    manager.run_mqsc("ALTER QMGR CONFIGEV(ENABLED)")
    connection = ibmmq.connect(manager.name, manager.channel, manager.conn_name)
    events_on(connection, CONFIG_EVENTS)
    try:
        yield connection
    finally:
        connection.disconnect()


def connection_count(manager) -> int:
    """The queue manager's own count of its connections (ibmmq_qmgr_connection_count on the
    metrics endpoint of a queue manager started with metrics_port=0)."""
    import urllib.request
    with urllib.request.urlopen(manager.metrics_url, timeout=30) as answer:
        text = answer.read().decode()
    counts = [line for line in text.splitlines()
              if line.startswith("ibmmq_qmgr_connection_count{")]
    assert len(counts) == 1, text
    return int(float(counts[0].rsplit(" ", 1)[1]))


def is_connected(qmgr) -> bool:
    """Whether an ibmmq QueueManager still answers (an MQINQ of its name)."""
    from ibmmq import CMQC
    try:
        qmgr.inquire(CMQC.MQCA_Q_MGR_NAME)
        return True
    except Exception:   # noqa: BLE001 - disconnected: ibmmq's PYIFError; broken: MQMIError
        return False
