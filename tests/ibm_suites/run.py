#!/usr/bin/env python
"""Run IBM's own MQ Python suites, unmodified, against a fresh embedded queue manager.

    PYTHONPATH=/tmp/ibm/site-packages .venv/bin/python tests/ibm_suites/run.py \\
        --mqi-python /tmp/ibm/mq-mqi-python --dev-patterns /tmp/ibm/mq-dev-patterns

(IBM's tests import `ddt`, installed aside in /tmp/ibm/site-packages: see README.md.)

Suites (IBM's sources are given as paths; none of their code is in this repository):
  tests             mq-mqi-python code/tests, by pytest (a per-test timeout), TLS test included
  password-optional the code/tests that need a queue manager whose password is optional
  examples          mq-mqi-python code/examples, each example program on its own
  examples-with-access  the examples the developer configuration refuses, given what they ask for
  dev-patterns      mq-dev-patterns Python samples, as put/get and request/response pairs

Each suite gets a fresh queue manager QM1 loaded with developer-config.mqsc (IBM MQ's
developer configuration) and the users app and admin. The tests suite also gets the key
repositories IBM's test_tls.py asks for; password-optional gets password-optional.mqsc (the
developer configuration as IBM's container makes it without an app password); the examples'
one gets what connect_client_tls.py needs and the developer configuration lacks
(example-tls-channel.mqsc and key repositories); examples-with-access gets that,
password-optional.mqsc and example-access.mqsc (the authority the refused examples ask for,
and nothing more), and runs only those examples. The child Pythons get the embedded
transport from site/sitecustomize.py. A report, not a gate: exits 0 whatever the suites
found, 2 when the harness itself cannot run. See README.md.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MQSC_FILE = HERE / "developer-config.mqsc"
SITE_DIR = HERE / "site"
PORT_VARIABLE = "SPARK_MQ_IBM_SUITES_PORT"  # read by site/sitecustomize.py
KEY_REPOSITORY_VARIABLE = "SPARK_MQ_IBM_SUITES_KEY_REPOSITORY"  # read by site/sitecustomize.py
TLS_EXAMPLE_MQSC = HERE / "example-tls-channel.mqsc"
PASSWORD_OPTIONAL_MQSC = HERE / "password-optional.mqsc"

QM_NAME = "QM1"
HOST = "127.0.0.1"
PASSWORD = "password"  # what IBM's runContainer.sh, tests and examples use for both users
USERS = {"app": PASSWORD, "admin": PASSWORD}
APP_CHANNEL = "DEV.APP.SVRCONN"
ADMIN_CHANNEL = "DEV.ADMIN.SVRCONN"
SEED_QUEUE = "DEV.QUEUE.1"
SEED_BODY = b"seed message from tests/ibm_suites/run.py"

SUITES = ("tests", "password-optional", "examples", "examples-with-access", "dev-patterns")
#: the suites that run mq-mqi-python's sources (the others, mq-dev-patterns')
MQI_PYTHON_SUITES = ("tests", "password-optional", "examples", "examples-with-access")

EXAMPLE_SKIPS = {
    "check_mq_version_rpm.py": "reads the RPM database for an installed MQ client; no queue manager",
    "check_mq_version_windows.py": "reads the Windows registry for an installed MQ client; no queue manager",
}
# DEV.QUEUE.1 is emptied before each example (several assume it is empty); these find one
# message there, put by the harness, because they demonstrate getting or browsing one.
EXAMPLE_SEEDED = {"get_message.py", "get_wait_single_message.py", "get_wait_truncated_message.py",
                  "hdr_browse.py"}
# hdr_browse.py browses QM2.STOPPED by default, a transmission queue of IBM's own set-up that
# the developer configuration does not have; it takes the queue as its argument.
EXAMPLE_ARGS = {"hdr_browse.py": [SEED_QUEUE]}
# Examples that catch the error they demonstrate and exit 0 either way: what shows success.
EXAMPLE_EXPECT = {"checking_cc_and_rc.py": "does not exist."}  # MQRC_HOST_NOT_AVAILABLE (2538)
# Examples that connect without a user and password: IBM MQ's developer configuration refuses
# them too (CHCKCLNT(REQUIRED) on DEV.APP.SVRCONN), so a 2035 there is faithful, not a gap.
NO_CREDENTIALS = "connects without user/password; IBM MQ's developer config refuses it too"
DEVELOPER_CONFIG_REFUSALS = {name: NO_CREDENTIALS for name in ("connect_simple.py", "put_get_correl_id.py")}
# ... two of which, once connected, would then be refused an authority app lacks
DEVELOPER_CONFIG_REFUSALS["dlq_browse.py"] = (NO_CREDENTIALS
                                              + ", and app lacks BROWSE on SYSTEM.DEAD.LETTER.QUEUE")
DEVELOPER_CONFIG_REFUSALS["set_identity.py"] = NO_CREDENTIALS + ", and app lacks SETID"
# Examples that ask `app` for more than the developer configuration's authority records give
# (put/get/browse/inq on DEV.**): IBM MQ refuses them with 2035 too.
NO_AUTHORITY = "app lacks this authority in IBM MQ's developer config; IBM MQ refuses it too"
DEVELOPER_CONFIG_REFUSALS.update({
    "alternate_user_id.py": NO_AUTHORITY + " (ALTUSR)",
    "inq_set.py": NO_AUTHORITY + " (SET on DEV.QUEUE.1)",
    "put_async_message.py": NO_AUTHORITY + " (SET on DEV.QUEUE.1)",
    "dynamic_queues.py": NO_AUTHORITY + " (SYSTEM.DEFAULT.MODEL.QUEUE)",
})
# Examples that connect over TLS, with their channel (defined by example-tls-channel.mqsc): the
# report says whether the queue manager logged their TLS handshake as completed.
TLS_EXAMPLES = {"connect_client_tls.py": "SYSTEM.SSL.SVRCONN.1"}
# ... and why IBM MQ refuses this one after the handshake: CHLAUTH, whatever the credentials.
DEVELOPER_CONFIG_REFUSALS["connect_client_tls.py"] = (
    "CHLAUTH blocks SYSTEM.SSL.SVRCONN.1 after TLS: no rule of IBM MQ's developer config admits "
    "it, crtmqm's SYSTEM.* rule and the back-stop rule '*' are USERSRC(NOACCESS), so a user and "
    "password would not help; IBM MQ refuses it too")
EXAMPLE_NOTES = dict(DEVELOPER_CONFIG_REFUSALS)
# Failures that are not the queue manager's: IBM's own code, with no queue manager involved.
PYTHON_312_SYNTAX = ("IBM's file nests quotes in an f-string, valid from Python 3.12 only; "
                     "not the queue manager's doing")
EXAMPLE_NOTES["get_wait_truncated_message.py"] = PYTHON_312_SYNTAX
TEST_NOTES = {
    "test_rfh2.TestRFH2.test_encoding_on_pack_big_endian":
        "ibmmq's RFH2.pack() alone (MQENC_FLOAT_S390 with native integers); no queue manager "
        "involved, not the queue manager's doing",
}
# IBM's test_tls.py (code/tests): where its key repositories are and what they hold, as its
# preparation notes make them with runmqakm (a self-signed certificate for each side, labelled
# mqtest and client, each trusting the other's). It sets the queue manager's SSLKEYR to
# <QMGR folder>/<QMGR label>, and MQSCO.KeyRepository to <CLIENT folder>/<CLIENT label>.
TLS_TEST_LABELS = {"QMGR": "mqtest", "CLIENT": "client"}
# The code/tests that skip themselves on a queue manager requiring passwords ("Test not viable
# for a user/password-requiring queue manager"): the password-optional suite runs them.
PASSWORD_OPTIONAL_TESTS = (
    "test_mq80.py::TestMQ80::test_successful_connect_without_optional_credentials",
    "test_queue_manager.py::TestQueueManager::test_init_name",
    "test_queue_manager.py::TestQueueManager::test_connect",
    "test_queue_manager.py::TestQueueManager::test_connect_tcp_client_without_cred",
    "test_queue_manager.py::TestQueueManager::test_connect_tcp_client_with_none_credentials",
)
# Two of those make the same connection (DEV.ADMIN.SVRCONN, no user and password) and want
# opposite answers; IBM MQ's developer configuration gives test_queue_manager's, 2035.
PASSWORD_OPTIONAL_NOTES = {
    "test_mq80.TestMQ80.test_successful_connect_without_optional_credentials":
        "connects to DEV.ADMIN.SVRCONN without user/password, so as its OS user; IBM MQ's "
        "developer config admits only client user admin on that channel (back-stop rule "
        "NOACCESS), so IBM MQ refuses it too, and test_queue_manager's "
        "test_connect_tcp_client_without_cred makes the same connection expecting that refusal",
}
# Subscribers that read what a publisher sends while they wait: started first, in the
# background, then the publisher runs, as a person trying the pair would do (subscriber ->
# (publisher, what shows the subscriber got the publication)).
EXAMPLE_SUBSCRIBERS = {"subscribe.py": ("publish_message.py", "Received publication:")}
SUBSCRIBER_START = 1.5  # seconds for a subscriber to connect and subscribe before publishing
# Examples that run until interrupted: they pass when still running, error-free, after this long.
EXAMPLE_RUN_FOR = {"put_get_correl_id.py": 10.0}
# The examples-with-access suite: the examples the developer configuration refuses, on a queue
# manager that gives them what they ask for (example-access.mqsc, after password-optional.mqsc
# and example-tls-channel.mqsc), and what each prints once it did its work.
ACCESS_MQSC = (PASSWORD_OPTIONAL_MQSC, TLS_EXAMPLE_MQSC, HERE / "example-access.mqsc")
ACCESS_EXPECT = {
    "alternate_user_id.py": "Done.",
    "connect_client_tls.py": "Done.",
    "connect_simple.py": "Connection succeeded.",
    "dlq_browse.py": "No more messages.",
    "dynamic_queues.py": "Done.",
    "inq_set.py": "Done.",
    # MQSTAT after each round of ten asynchronous puts: all put, then all refused (PUT(DISABLED))
    "put_async_message.py": "Put Success: 10\nPut Failure: 0\n\nQueue:  MQQA_PUT_INHIBITED\n"
                            "Put Success: 0\nPut Failure: 10\n",
    "put_get_correl_id.py": "Got response message",
    "set_identity.py": "Done.",
}

PATTERN_SKIPS: dict[str, str] = {}


@dataclass(frozen=True)
class Step:
    """One mq-dev-patterns sample run within a scenario."""
    script: str
    expect: str               # a log line showing that the sample did its work
    background: bool = False  # started first and left waiting, as the README says to


# The samples log their MQ errors and exit 0, hence the expected log lines.
SCENARIOS = {
    "put/get": [Step("basicput.py", "Put message successful"),
                Step("basicget.py", "Have message from input queue")],
    "request/response": [Step("basicresponse.py", "Have message from input queue", background=True),
                         Step("basicrequest.py", "Have message from reply queue")],
    "publish/subscribe": [Step("basicsubscribe.py", "Have publication on topic", background=True),
                          Step("basicpublish.py", "Publish message successful")],
}


class HarnessError(RuntimeError):
    """The harness itself cannot run (as opposed to a suite finding a failure)."""


@dataclass(frozen=True)
class Outcome:
    name: str
    status: str  # passed, failed, error, skipped
    reason: str = ""


@dataclass
class SuiteResult:
    title: str
    outcomes: list[Outcome]
    log_dir: Path
    server_errors: list[str] = field(default_factory=list)  # from the queue manager's log

    def count(self, status: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status == status)


# --- reasons ---------------------------------------------------------------------------------
_MQ_REASON = re.compile(r"Reason (\d+): (?:(?:FAILED|WARNING):\s*)?(\w+)")
_REASON_NAME = re.compile(r"\b(MQRC(?:CF)?_\w+)")
_RC_NUMBER = re.compile(r"\b(?:RC|reason)[:= ]+(\d{4})\b", re.IGNORECASE)
_EXCEPTION_LINE = re.compile(r"^(?:E\s+)?([\w.]*(?:Error|Exception|Timeout)\w*: .*)$", re.MULTILINE)


def mq_reason(text: str) -> str | None:
    """The first MQ reason code in `text`, as "2085 MQRC_UNKNOWN_OBJECT_NAME" when it can."""
    if match := _MQ_REASON.search(text):  # how ibmmq's MQMIError prints itself
        return f"{match.group(1)} {match.group(2)}"
    found = [match.group(1) for match in (_RC_NUMBER.search(text), _REASON_NAME.search(text)) if match]
    return " ".join(found) or None


def first_reason(text: str) -> str:
    """The first MQ reason code in `text`, else the first exception line, else its first
    non-blank line: what the report shows per failure."""
    if reason := mq_reason(text):
        return reason
    if match := _EXCEPTION_LINE.search(text):
        return _shorten(match.group(1))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return _shorten(lines[0]) if lines else "no output"


def _shorten(line: str, width: int = 120) -> str:
    return line if len(line) <= width else line[:width - 3] + "..."


def script_outcome(name: str, returncode: int | None, output: str, expect: str | None = None,
                   timeout: float = 0) -> Outcome:
    """Judge one IBM program by its exit code, its logged errors and its expected output."""
    if returncode is None:
        return Outcome(name, "failed", f"timed out after {timeout:g} s ({_mq_reason_or_none(output)})")
    if returncode != 0:
        return Outcome(name, "failed", first_reason(_after_traceback(output)))
    errors = [line for line in output.splitlines() if line.startswith("ERROR:")]
    if errors:
        return Outcome(name, "failed", first_reason("\n".join(errors)))
    if expect and expect not in output:
        return Outcome(name, "failed", f"did not print {expect!r} ({_mq_reason_or_none(output)})")
    return Outcome(name, "passed")


def _mq_reason_or_none(output: str) -> str:
    return mq_reason(output) or "no MQ error of its own"


def _after_traceback(output: str) -> str:
    """The traceback part of a failed program's output, where its reason is."""
    index = output.find("Traceback (most recent call last)")
    return output[index:] if index >= 0 else output


# --- the queue manager -----------------------------------------------------------------------
def start_queue_manager(data_dir: Path, extra_mqsc: Sequence[Path] = (),
                        tls_key_repository: str | None = None):
    """A fresh embedded QM1 with IBM MQ's developer configuration, on a free loopback port;
    the `extra_mqsc` files are run after it at start-up, in order, and the queue manager's
    certificate is in `tls_key_repository` when given."""
    from spark_mq.embedded import EmbeddedQueueManager, EmbeddedQueueManagerError
    mqsc = "\n".join(path.read_text() for path in (MQSC_FILE, *extra_mqsc)) if extra_mqsc else str(MQSC_FILE)
    manager = EmbeddedQueueManager(str(data_dir), name=QM_NAME, port=0, mqsc=mqsc,
                                   users=USERS, host=HOST, tls_key_repository=tls_key_repository)
    try:
        return manager.start()
    except EmbeddedQueueManagerError as exc:
        raise HarnessError(f"the embedded queue manager did not start: {exc}") from exc


def make_key_repositories(folder: Path) -> tuple[str, str]:
    """The queue manager's key repository (its certificate) and a client one that trusts it,
    made by tests/tls_keys.py with the openssl command; their stems."""
    if str(HERE.parent) not in sys.path:  # tests/, when run.py runs as a script
        sys.path.append(str(HERE.parent))
    from tls_keys import one_way_repositories
    try:
        return one_way_repositories(str(folder), f"/O=tests-ibm_suites/CN={QM_NAME}")
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        raise HarnessError(f"cannot make the key repositories connect_client_tls.py needs: {exc}") from exc


def tls_handshake(log_text: str, channel: str) -> str | None:
    """The protocol and CipherSpec of a TLS handshake for `channel` that the queue manager
    logged as completed (server/tls.py logs each one), or None."""
    match = re.search(rf"TLS handshake with \S+ completed for channel '{re.escape(channel)}': "
                      r"([^,]+), ([^,\s]+)", log_text)
    return f"{match.group(1)} {match.group(2)}" if match else None


def server_errors(log: Path) -> list[str]:
    """The exception line of each traceback in the queue manager's log: a 2009
    (MQRC_CONNECTION_BROKEN) in a suite is often the server failing, and this says why."""
    if not log.exists():
        return []
    errors, in_traceback = [], False
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("Traceback (most recent call last)"):
            in_traceback = True
        elif in_traceback and line and not line.startswith(" "):
            errors.append(_shorten(line))
            in_traceback = False
    return errors


def child_environment(port: int, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of IBM's programs: embedded transport, and where QM1 is."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SITE_DIR), env.get("PYTHONPATH")]))
    env[PORT_VARIABLE] = str(port)
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave IBM's folders as they were fetched
    env["PYTHONUNBUFFERED"] = "1"         # keep logs and prints in order in the captured output
    # `connect("QM1")` without a connection name (connect_simple.py, dlq_browse.py) uses MQSERVER
    env["MQSERVER"] = f"{APP_CHANNEL}/TCP/{HOST}({port})"
    for name in ("MQCCDTURL", "MQCHLLIB", "MQCHLTAB"):  # a CCDT would override the above
        env.pop(name, None)
    env.update(extra or {})
    return env


def reset_seed_queue(manager, with_message: bool) -> None:
    """Empty DEV.QUEUE.1 and optionally put one message, so that every example and sample
    starts from the same state whatever ran before it."""
    manager.run_mqsc(f"CLEAR QLOCAL('{SEED_QUEUE}')")
    if not with_message:
        return
    import ibmmq  # the embedded transport: main() installed it
    conn = ibmmq.connect(QM_NAME, APP_CHANNEL, manager.conn_name, "app", PASSWORD)
    try:
        queue = ibmmq.Queue(conn, SEED_QUEUE, ibmmq.CMQC.MQOO_OUTPUT)
        queue.put(SEED_BODY, ibmmq.MD(Format=ibmmq.CMQC.MQFMT_STRING))
        queue.close()
    finally:
        conn.disconnect()


_OPEN_COUNT = re.compile(r"\b(?:IPPROCS|OPPROCS)\((\d+)\)")


def wait_until_dev_queues_closed(manager, deadline: float = 10.0) -> None:
    """Wait (up to `deadline` seconds) until no DEV.* queue is open: a program that was killed
    leaves its handles open until the queue manager notices its connection has gone, and
    CLEAR QLOCAL refuses an open queue, as MQ does."""
    ends = time.monotonic() + deadline
    while time.monotonic() < ends:
        try:
            shown = manager.run_mqsc("DISPLAY QLOCAL('DEV.*') IPPROCS OPPROCS")
        except Exception:  # a broken queue manager: the next example's set-up reports it
            return
        if not any(int(count) for count in _OPEN_COUNT.findall(shown)):
            return
        time.sleep(0.1)


def try_reset_seed_queue(manager, with_message: bool) -> str | None:
    """reset_seed_queue(), or why it failed: a queue manager that breaks during set-up is a
    finding against the program about to run, not a reason to lose the whole report."""
    try:
        reset_seed_queue(manager, with_message)
    except Exception as exc:  # MQMIError, EmbeddedQueueManagerError, OSError...
        return f"harness set-up of {SEED_QUEUE} failed: {first_reason(str(exc))}"
    return None


def run_program(command: Sequence[str], cwd: Path, env: dict[str, str], log: Path,
                timeout: float) -> tuple[int | None, str]:
    """Run one program; its exit code (None on timeout) and its output, also kept in `log`."""
    with open(log, "w+b") as handle:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        returncode = _wait(process, timeout)
        handle.seek(0)
        return returncode, handle.read().decode(errors="replace")


def _wait(process: subprocess.Popen, timeout: float) -> int | None:
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return None


# --- suites: mq-mqi-python code/tests -------------------------------------------------------
def mqi_test_environment(port: int, use_pw: str = "REQUIRED") -> dict[str, str]:
    """The PY_IBMMQ_TEST_* variables code/tests/config.py reads (values as tox.ini sets them;
    `use_pw`: CONNAUTH_USE_PW, REQUIRED or OPTIONAL)."""
    qm = {"NAME": QM_NAME, "HOST": HOST, "PORT": str(port), "TRANSPORT": "TCP",
          "CHANNEL": ADMIN_CHANNEL, "USER": "admin", "PASSWORD": PASSWORD,
          "APP_CHANNEL": APP_CHANNEL, "APP_USER": "app", "APP_PASSWORD": PASSWORD,
          "CONNAUTH_SUPPORTED": "1", "CONNAUTH_USE_PW": use_pw}
    env = {f"PY_IBMMQ_TEST_QM_{key}": value for key, value in qm.items()}
    env["PY_IBMMQ_TEST_QUEUE_PREFIX"] = "PYTEST"
    return env


def tls_test_environment(folder: Path) -> dict[str, str]:
    """The PY_IBMMQ_TEST_TLS_* variables IBM's test_tls.py reads, with the key repositories
    they name made in `folder` (tests/tls_keys.py): the test runs instead of skipping."""
    if str(HERE.parent) not in sys.path:  # tests/, when run.py runs as a script
        sys.path.append(str(HERE.parent))
    from tls_keys import exchanged_self_signed
    qm_folder, client_folder = folder / "qmgr", folder / "client"
    qm_label, client_label = TLS_TEST_LABELS["QMGR"], TLS_TEST_LABELS["CLIENT"]
    try:
        exchanged_self_signed(str(qm_folder / qm_label), qm_label, str(client_folder / client_label),
                              client_label)
    except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:
        raise HarnessError(f"cannot make the key repositories test_tls.py needs: {exc}") from exc
    return {"PY_IBMMQ_TEST_TLS_SKIP": "0",
            "PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_QMGR": str(qm_folder),
            "PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_CLIENT": str(client_folder),
            "PY_IBMMQ_TEST_TLS_CERT_LABEL_QMGR": qm_label,
            "PY_IBMMQ_TEST_TLS_CERT_LABEL_CLIENT": client_label,
            "PY_IBMMQ_TEST_TLS_CLIENT_DN": f"CN={client_label}"}


def junit_outcomes(xml_text: str) -> list[Outcome]:
    """Outcomes from pytest's JUnit XML report, with the first MQ reason of each failure."""
    outcomes = []
    for case in ElementTree.fromstring(xml_text).iter("testcase"):
        name = ".".join(filter(None, [case.get("classname"), case.get("name")]))
        status, reason = "passed", ""
        for tag, tag_status in (("failure", "failed"), ("error", "error"), ("skipped", "skipped")):
            element = case.find(tag)
            if element is not None:
                status = tag_status
                text = f"{element.get('message', '')}\n{element.text or ''}"
                reason = _shorten(element.get("message", "")) if tag == "skipped" else first_reason(text)
                break
        outcomes.append(Outcome(name, status, reason))
    return outcomes


def run_mqi_tests(source: Path, work: Path, timeout: float) -> SuiteResult:
    """All of code/tests, on the developer configuration (passwords required), with the key
    repositories test_tls.py asks for."""
    tls_env = tls_test_environment(work / "tls")
    outcomes = _run_pytest(source, work, timeout, "REQUIRED", tls_env, (), (), TEST_NOTES)
    return SuiteResult("mq-mqi-python code/tests (pytest)", outcomes, work,
                       server_errors(work / "qm" / "qmgr.log"))


def run_mqi_tests_password_optional(source: Path, work: Path, timeout: float) -> SuiteResult:
    """The code/tests that need a queue manager whose password is optional, on one set up
    as IBM's developer container is without an app password (password-optional.mqsc)."""
    outcomes = _run_pytest(source, work, timeout, "OPTIONAL", {}, PASSWORD_OPTIONAL_TESTS,
                           (PASSWORD_OPTIONAL_MQSC,), PASSWORD_OPTIONAL_NOTES)
    return SuiteResult("mq-mqi-python code/tests, password optional", outcomes, work,
                       server_errors(work / "qm" / "qmgr.log"))


def _run_pytest(source: Path, work: Path, timeout: float, use_pw: str, extra_env: dict[str, str],
                node_ids: Sequence[str], extra_mqsc: Sequence[Path],
                notes: dict[str, str]) -> list[Outcome]:
    """pytest on code/tests (only `node_ids` when given) against a fresh queue manager; the
    outcomes, failures explained by `notes` marked so."""
    tests_dir = source / "code" / "tests"
    ini = work / "pytest.ini"  # IBM's tox.ini and our pyproject.toml must not configure this run
    ini.write_text("[pytest]\n")
    junit = work / "junit.xml"
    manager = start_queue_manager(work / "qm", extra_mqsc)
    try:
        env = child_environment(manager.port, {**mqi_test_environment(manager.port, use_pw), **extra_env})
        command = [sys.executable, "-m", "pytest", *(node_ids or [str(tests_dir)]), "-c", str(ini),
                   "--rootdir", str(tests_dir), "-p", "no:cacheprovider", "--timeout", f"{timeout:g}",
                   "--junitxml", str(junit), "-q", "-rN"]
        returncode, output = run_program(command, tests_dir, env, work / "pytest.log", 3600)
    finally:
        manager.stop()
    if returncode is None or not junit.exists():
        raise HarnessError(f"pytest did not report (exit code {returncode}); see {work / 'pytest.log'}:\n"
                           + output[-2000:])
    return [Outcome(o.name, o.status, f"{o.reason} ({notes[o.name]})")
            if o.status == "failed" and o.name in notes else o
            for o in junit_outcomes(junit.read_text())]


# --- suites: mq-mqi-python code/examples -----------------------------------------------------
def run_examples(source: Path, work: Path, timeout: float) -> SuiteResult:
    """Every example, on the developer configuration (and the channel and keys
    connect_client_tls.py needs); the refusals IBM MQ would make too are marked so."""
    examples = sorted((source / "code" / "examples").glob("*.py"))
    outcomes = _run_examples(examples, work, timeout, (TLS_EXAMPLE_MQSC,), EXAMPLE_EXPECT, EXAMPLE_NOTES)
    return SuiteResult("mq-mqi-python code/examples", outcomes, work, server_errors(work / "qm" / "qmgr.log"))


def run_examples_with_access(source: Path, work: Path, timeout: float) -> SuiteResult:
    """The examples the developer configuration refuses, given the access they ask for
    (ACCESS_MQSC): each must now do its work, so no failure is marked as expected."""
    examples_dir = source / "code" / "examples"
    present = [examples_dir / name for name in sorted(DEVELOPER_CONFIG_REFUSALS)
               if (examples_dir / name).is_file()]
    outcomes = [Outcome(name, "skipped", "not in this copy of code/examples")
                for name in sorted(DEVELOPER_CONFIG_REFUSALS) if not (examples_dir / name).is_file()]
    outcomes += _run_examples(present, work, timeout, ACCESS_MQSC, ACCESS_EXPECT, {})
    return SuiteResult("mq-mqi-python code/examples, with the access they ask for",
                       sorted(outcomes, key=lambda outcome: outcome.name), work,
                       server_errors(work / "qm" / "qmgr.log"))


def _run_examples(examples: Sequence[Path], work: Path, timeout: float, extra_mqsc: Sequence[Path],
                  expect: dict[str, str], notes: dict[str, str]) -> list[Outcome]:
    """Each example on its own, against one fresh queue manager loaded with the developer
    configuration and `extra_mqsc`, with key repositories for the TLS example."""
    if not examples:
        return []
    qm_keys, client_keys = make_key_repositories(work / "tls")
    manager = start_queue_manager(work / "qm", extra_mqsc, tls_key_repository=qm_keys)
    try:
        env = child_environment(manager.port, {KEY_REPOSITORY_VARIABLE: client_keys})
        return [_run_example(script, manager, env, work, timeout, expect, notes) for script in examples]
    finally:
        manager.stop()


def _run_example(script: Path, manager, env: dict[str, str], work: Path, timeout: float,
                 expect: dict[str, str], notes: dict[str, str]) -> Outcome:
    """One example: passed, or its failure with its first reason and, from `notes`, why
    IBM MQ fails it too."""
    if script.name in EXAMPLE_SKIPS:
        return Outcome(script.name, "skipped", EXAMPLE_SKIPS[script.name])
    if failure := try_reset_seed_queue(manager, with_message=script.name in EXAMPLE_SEEDED):
        return Outcome(script.name, "error", failure)
    if script.name in EXAMPLE_SUBSCRIBERS:
        return _run_subscriber_example(script, env, work, timeout)
    command = [sys.executable, script.name, *EXAMPLE_ARGS.get(script.name, [])]
    run_for = EXAMPLE_RUN_FOR.get(script.name)
    qm_log = Path(manager.data_dir) / "qmgr.log"
    log_start = qm_log.stat().st_size if qm_log.exists() else 0
    returncode, output = run_program(command, script.parent, env, work / f"{script.stem}.log",
                                     run_for or timeout)
    if returncode is None:  # killed: its queues stay open until the queue manager sees it gone
        wait_until_dev_queues_closed(manager)
    outcome = (still_running_outcome(script.name, output, expect.get(script.name))
               if run_for and returncode is None else
               script_outcome(script.name, returncode, output, expect.get(script.name), timeout))
    if outcome.status != "failed":
        return outcome
    note = notes.get(script.name)
    if script.name in TLS_EXAMPLES:  # its note holds only once TLS is shown to have succeeded
        with open(qm_log, "rb") as handle:
            handle.seek(log_start)
            handshake = tls_handshake(handle.read().decode(errors="replace"), TLS_EXAMPLES[script.name])
        evidence = (f"TLS handshake completed: {handshake}" if handshake else
                    f"no completed TLS handshake for {TLS_EXAMPLES[script.name]} in qmgr.log")
        note = f"{evidence}; {note}" if handshake and note else evidence
    return Outcome(outcome.name, outcome.status, f"{outcome.reason} ({note})") if note else outcome


def still_running_outcome(name: str, output: str, expect: str | None = None) -> Outcome:
    """An example that runs until interrupted, still running when its time was up: it passes
    unless a thread of it died (a traceback) or it logged an error, and it printed `expect`."""
    if "Traceback (most recent call last)" in output:
        return Outcome(name, "failed", first_reason(_after_traceback(output)))
    return script_outcome(name, 0, output, expect)


def _run_subscriber_example(script: Path, env: dict[str, str], work: Path, timeout: float) -> Outcome:
    """A subscriber example, with its publisher run while it waits: it passes when it shows
    the publication it received (the publisher is judged on its own run as well)."""
    publisher, expect = EXAMPLE_SUBSCRIBERS[script.name]
    log = work / f"{script.stem}.log"
    with open(log, "wb") as handle:
        process = subprocess.Popen([sys.executable, script.name], cwd=script.parent, env=env,
                                   stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)
    time.sleep(SUBSCRIBER_START)
    run_program([sys.executable, publisher], script.parent, env,
                work / f"{script.stem}.{Path(publisher).stem}.log", timeout)
    returncode = _wait(process, timeout)
    output = log.read_bytes().decode(errors="replace")
    return script_outcome(script.name, returncode, output, expect, timeout)


# --- suite: mq-dev-patterns Python samples ---------------------------------------------------
def dev_patterns_config(port: int) -> dict[str, object]:
    """The samples' env.json (IBM's points at three TLS queue managers): one endpoint, QM1."""
    endpoint = {"HOST": HOST, "PORT": str(port), "CHANNEL": APP_CHANNEL, "QMGR": QM_NAME,
                "APP_USER": "app", "APP_PASSWORD": PASSWORD, "QUEUE_NAME": SEED_QUEUE,
                "BACKOUT_QUEUE": "DEV.QUEUE.2", "MODEL_QUEUE_NAME": "DEV.APP.MODEL.QUEUE",
                "DYNAMIC_QUEUE_PREFIX": "APP.REPLIES.*", "TOPIC_NAME": "dev/"}
    return {"MQ_ENDPOINTS": [endpoint]}


def run_dev_patterns(source: Path, work: Path, timeout: float) -> SuiteResult:
    samples_dir = source / "Python"
    config = work / "env.json"
    outcomes = []
    manager = start_queue_manager(work / "qm")
    try:
        config.write_text(json.dumps(dev_patterns_config(manager.port), indent=2))
        env = child_environment(manager.port, {"JSON_CONFIG": str(config)})
        for steps in SCENARIOS.values():
            if failure := try_reset_seed_queue(manager, with_message=False):
                outcomes += [Outcome(step.script, "error", failure) for step in steps]
                continue
            outcomes += _run_scenario(steps, samples_dir, env, work, timeout)
        for script in _other_samples(samples_dir):
            outcomes.append(_run_lone_sample(script, env, work, timeout))
    finally:
        manager.stop()
    return SuiteResult("mq-dev-patterns Python samples", outcomes, work,
                       server_errors(work / "qm" / "qmgr.log"))


def _other_samples(samples_dir: Path) -> list[Path]:
    """Samples not in a scenario: skipped ones, and any IBM adds later (run on their own)."""
    in_scenarios = {step.script for steps in SCENARIOS.values() for step in steps}
    return [path for path in sorted(samples_dir.glob("*.py"))
            if path.name != "__init__.py" and path.name not in in_scenarios]


def _run_scenario(steps: Iterable[Step], samples_dir: Path, env: dict[str, str], work: Path,
                  timeout: float) -> list[Outcome]:
    background: list[tuple[Step, subprocess.Popen, Path]] = []
    outcomes = []
    for step in steps:
        log = work / f"{Path(step.script).stem}.log"
        command = [sys.executable, step.script]
        if step.background:
            handle = open(log, "wb")
            background.append((step, subprocess.Popen(command, cwd=samples_dir, env=env, stdout=handle,
                                                      stderr=subprocess.STDOUT), log))
            handle.close()
            time.sleep(1.0)  # let it connect and wait on its queue, as a person starting it first would
            continue
        returncode, output = run_program(command, samples_dir, env, log, timeout)
        outcomes.append(script_outcome(step.script, returncode, output, step.expect, timeout))
    for step, process, log in background:
        returncode = _wait(process, timeout)
        output = log.read_bytes().decode(errors="replace")
        outcomes.append(script_outcome(step.script, returncode, output, step.expect, timeout))
    return outcomes


def _run_lone_sample(script: Path, env: dict[str, str], work: Path, timeout: float) -> Outcome:
    if script.name in PATTERN_SKIPS:
        return Outcome(script.name, "skipped", PATTERN_SKIPS[script.name])
    returncode, output = run_program([sys.executable, script.name], script.parent, env,
                                     work / f"{script.stem}.log", timeout)
    return script_outcome(script.name, returncode, output, None, timeout)


# --- report ----------------------------------------------------------------------------------
def print_report(results: Sequence[SuiteResult]) -> None:
    for result in results:
        print(f"\n== {result.title}: {_counts(result)}  (logs: {result.log_dir})")
        for outcome in result.outcomes:
            if outcome.status != "passed":
                print(f"  {outcome.status.upper():7} {outcome.name}: {outcome.reason}")
        for error, count in Counter(result.server_errors).most_common():
            print(f"  queue manager log: {count} x {error}")
    print("\n== first reasons of failures and errors, most frequent first")
    for reason, names in _by_reason(results):
        print(f"  {len(names):3}  {reason}: {', '.join(names[:6])}{' ...' if len(names) > 6 else ''}")
    print("\n== summary")
    width = max((len(result.title) for result in results), default=0)
    for result in results:
        print(f"  {result.title:{width}} {_counts(result)}")


def _counts(result: SuiteResult) -> str:
    statuses = ("passed", "failed", "error", "skipped")
    return ", ".join(f"{status} {result.count(status)}" for status in statuses)


def _by_reason(results: Sequence[SuiteResult]) -> list[tuple[str, list[str]]]:
    groups: dict[str, list[str]] = {}
    for result in results:
        for outcome in result.outcomes:
            if outcome.status in ("failed", "error"):
                groups.setdefault(outcome.reason, []).append(outcome.name)
    return sorted(groups.items(), key=lambda item: (-len(item[1]), item[0]))


# --- command line ----------------------------------------------------------------------------
def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mqi-python", type=Path,
                        help="a copy of github.com/ibm-messaging/mq-mqi-python")
    parser.add_argument("--dev-patterns", type=Path,
                        help="a copy of github.com/ibm-messaging/mq-dev-patterns")
    parser.add_argument("--suite", action="append", choices=SUITES,
                        help="run only this suite (repeatable; default: all whose source is given)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds per test, example or sample (default 60)")
    parser.add_argument("--work-dir", type=Path,
                        help="where logs and queue manager data go (default: a new temp dir)")
    args = parser.parse_args(argv)
    if not args.mqi_python and not args.dev_patterns:
        parser.error("give --mqi-python and/or --dev-patterns")
    return args


def _check_source(path: Path | None, marker: str, option: str) -> Path:
    if path is None or not (path / marker).is_file():
        raise HarnessError(f"{option} {path}: no {marker} there (see tests/ibm_suites/README.md)")
    return path.resolve()


def plan(args: argparse.Namespace) -> list[str]:
    """The suites to run: the chosen ones, else all whose sources were given."""
    wanted = args.suite or [suite for suite in SUITES
                            if (args.mqi_python if suite in MQI_PYTHON_SUITES else args.dev_patterns)]
    return [suite for suite in SUITES if suite in wanted]


def run_suites(args: argparse.Namespace) -> list[SuiteResult]:
    work = (args.work_dir or Path(tempfile.mkdtemp(prefix="ibm-suites-"))).resolve()
    results = []
    for suite in plan(args):  # one at a time, each on a fresh queue manager
        suite_work = work / suite
        suite_work.mkdir(parents=True, exist_ok=True)
        print(f"running {suite} ...", flush=True)
        if suite == "dev-patterns":
            source = _check_source(args.dev_patterns, "Python/utils/env.py", "--dev-patterns")
            results.append(run_dev_patterns(source, suite_work, args.timeout))
        else:
            source = _check_source(args.mqi_python, "code/tests/config.py", "--mqi-python")
            runner = {"tests": run_mqi_tests, "password-optional": run_mqi_tests_password_optional,
                      "examples": run_examples, "examples-with-access": run_examples_with_access}[suite]
            results.append(runner(source, suite_work, args.timeout))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    import spark_mq.embedded as embedded
    embedded.install()  # this process seeds queues through ibmmq, so before it is imported
    try:
        print_report(run_suites(args))
    except HarnessError as exc:
        print(f"ibm_suites harness error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
