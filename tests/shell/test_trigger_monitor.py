"""`spark-mq-qmgr trigger-monitor` as a user runs it (the installed command, a plain shell)
against a real embedded queue manager: a message on a triggered queue runs a real program
(a script the test writes) with the MQTMC2 as one argument and ENVRDATA after it; a program
that cannot be started sends the trigger message to the dead-letter queue behind an MQDLH;
Ctrl-C ends the monitor quietly. Every wait is for a line the monitor prints or a message,
with a deadline."""
from __future__ import annotations

import json
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from support import activated_environment

QM = "QMTRM"
DLQ = "TRM.DLQ"
DEADLINE = 60.0


@pytest.fixture(scope="module")
def tqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qmtrm")), name=QM,
                                       mqsc=f"DEFINE QLOCAL({DLQ})\nALTER QMGR DEADQ({DLQ})") as qm:
        yield qm


@pytest.fixture
def conn(tqm):
    connection = ibmmq.connect(QM, "DEV.APP.SVRCONN", tqm.conn_name)
    yield connection
    connection.disconnect()


class Monitor:
    """The trigger monitor in its own process; its standard error read line by line."""

    def __init__(self, tqm, initq: str, cwd: Path) -> None:
        self.process = subprocess.Popen(
            ["spark-mq-qmgr", "trigger-monitor", "--initq", initq, "--queue-manager", QM,
             "--conn-name", tqm.conn_name, "--transport", "embedded"],
            cwd=cwd, env=activated_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True)
        self.lines: list[str] = []
        self.wait_for("waiting for trigger messages")

    def wait_for(self, text: str) -> str:
        """The first line (from now on) holding `text`; fails after DEADLINE seconds."""
        deadline = time.monotonic() + DEADLINE
        assert self.process.stderr is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stderr, selectors.EVENT_READ)
            while time.monotonic() < deadline:
                if not selector.select(deadline - time.monotonic()):
                    break
                line = self.process.stderr.readline()
                if not line:
                    break
                self.lines.append(line)
                if text in line:
                    return line
        raise AssertionError(f"no line with {text!r}; the monitor said: {''.join(self.lines)}")

    def interrupt(self, number: int = signal.SIGINT) -> tuple[int, str]:
        self.process.send_signal(number)
        _, err = self.process.communicate(timeout=DEADLINE)
        return self.process.returncode, "".join(self.lines) + err

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


@pytest.fixture
def monitor(tqm, tmp_path):
    started: list[Monitor] = []

    def start(initq: str) -> Monitor:
        started.append(Monitor(tqm, initq, tmp_path))
        return started[-1]
    yield start
    for one in started:
        one.stop()


def put(conn, name: str) -> None:
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    queue.put(b"work for the job")
    queue.close()


def recorder(tmp_path: Path) -> tuple[Path, Path]:
    """A small program that writes the arguments it was started with to a file."""
    output = tmp_path / "arguments.json"
    script = tmp_path / "record-arguments"
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(output)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(0o755)
    return script, output


def test_a_message_on_an_idle_queue_runs_the_process_with_the_mqtmc2(tqm, conn, monitor, tmp_path):
    script, output = recorder(tmp_path)
    tqm.run_mqsc(f"""
        DEFINE PROCESS(RECORD.PROC) APPLICID('{script}') ENVRDATA('--from-trigger yes') +
               USERDATA('user data') REPLACE
        DEFINE QLOCAL(RECORD.INITQ) REPLACE
        DEFINE QLOCAL(RECORD.APP) TRIGGER TRIGTYPE(FIRST) PROCESS(RECORD.PROC) +
               INITQ(RECORD.INITQ) TRIGDATA('trigger data') REPLACE""")
    running = monitor("RECORD.INITQ")
    put(conn, "RECORD.APP")
    running.wait_for("the program ended with exit status 0")
    tmc2, *rest = json.loads(output.read_text())
    assert rest == ["--from-trigger", "yes"]                 # ENVRDATA after the MQTMC2
    assert len(tmc2) == CMQC.MQTMC2_LENGTH_2 == 732          # one argument, blanks kept
    tmc = ibmmq.TMC2()
    tmc.unpack(tmc2.encode())
    assert tmc._StrucId == CMQC.MQTMC_STRUC_ID and tmc.Version == CMQC.MQTMC_VERSION_2
    assert tmc.QName.strip() == b"RECORD.APP"
    assert tmc.ProcessName.strip() == b"RECORD.PROC"
    assert tmc.TriggerData.strip() == b"trigger data"
    assert tmc.ApplId.strip() == str(script).encode()
    assert tmc.EnvData.strip() == b"--from-trigger yes"
    assert tmc.UserData.strip() == b"user data"
    assert tmc.QMgrName.strip() == QM.encode()
    code, said = running.interrupt()
    assert code == 130 and "Traceback" not in said      # Ctrl-C: 130, as every shell tool
    assert "ended; 1 program(s) started" in said


def test_a_program_that_cannot_be_started_sends_the_trigger_message_to_the_dlq(
        tqm, conn, monitor):
    tqm.run_mqsc("""
        DEFINE PROCESS(MISSING.PROC) APPLICID('/no/such/program --flag') REPLACE
        DEFINE QLOCAL(MISSING.INITQ) REPLACE
        DEFINE QLOCAL(MISSING.APP) TRIGGER TRIGTYPE(EVERY) PROCESS(MISSING.PROC) +
               INITQ(MISSING.INITQ) REPLACE""")
    running = monitor("MISSING.INITQ")
    put(conn, "MISSING.APP")
    line = running.wait_for("dead-letter queue")
    assert "'/no/such/program --flag' cannot be started" in line
    assert "265 MQFB_APPL_CANNOT_BE_STARTED" in line
    dlq = ibmmq.Queue(conn, DLQ, CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD()
        data = dlq.get(None, md, ibmmq.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10_000))
    finally:
        dlq.close()
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert md.Feedback == CMQC.MQFB_APPL_CANNOT_BE_STARTED
    dlh = ibmmq.DLH().get_header(data)
    assert dlh.Reason == CMQC.MQFB_APPL_CANNOT_BE_STARTED
    assert dlh.DestQName.strip() == b"MISSING.INITQ" and dlh.Format == CMQC.MQFMT_TRIGGER
    tm = ibmmq.TM()
    tm.unpack(data[CMQC.MQDLH_LENGTH_1:])
    assert tm.QName.strip() == b"MISSING.APP" and tm.ProcessName.strip() == b"MISSING.PROC"
    code, said = running.interrupt(signal.SIGTERM)     # kill: as quiet as Ctrl-C
    assert code == 0 and "ended; 0 program(s) started" in said and "Traceback" not in said


def test_an_initiation_queue_that_does_not_exist_is_one_line_with_its_reason(tqm, tmp_path):
    done = subprocess.run(
        ["spark-mq-qmgr", "trigger-monitor", "--initq", "NO.SUCH.INITQ", "--queue-manager", QM,
         "--conn-name", tqm.conn_name, "--transport", "embedded"],
        cwd=tmp_path, env=activated_environment(), capture_output=True, text=True,
        timeout=DEADLINE)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr
    assert "NO.SUCH.INITQ" in lines[0] and "2085" in lines[0], lines[0]
