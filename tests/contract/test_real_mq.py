"""The same MQ contract and the same connector round trip, against the embedded queue
manager and against IBM MQ itself (IBM's developer container, started with testcontainers).

The container variant needs a Docker engine and IBM's MQ C client (libmqm_r.so, e.g. the
redistributable client with LD_LIBRARY_PATH pointing at its lib64); without either it is
skipped, saying which is missing. The embedded variant always runs.

The MQ work runs in a child process per target because one process can bind `ibmmq` to
one transport only, and this test process is bound to the embedded one (conftest.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from support import PROJECT_ROOT, explain, job_env, spark_submit

MQSC = os.path.join(PROJECT_ROOT, "mqsc", "spark-mq.mqsc")
CONTRACT_QUEUE = "SPARK.MQ.IMPORT"
MQ_IMAGE = os.environ.get("SPARK_MQ_TEST_IMAGE", "icr.io/ibm-messaging/mq:latest")
APP_PASSWORD = "spark-mq-Passw0rd"


# --------------------------------------------------------------------------------------
# Targets
# --------------------------------------------------------------------------------------

def docker_unavailable_reason() -> str | None:
    try:
        import docker
    except ImportError:
        return "the docker Python SDK is not installed (pip install 'spark-mq[test]')"
    try:
        docker.from_env().ping()
    except Exception as exc:  # noqa: BLE001 - any failure means: no engine to talk to
        return f"no Docker engine reachable ({type(exc).__name__}: {str(exc)[:160]})"
    return None


def ibm_client_unavailable_reason() -> str | None:
    from spark_mq.mq.connecting import ibm_client_available
    if ibm_client_available():
        return None
    return ("IBM's MQ C client (libmqm_r.so) cannot be loaded: install the redistributable client "
            "(see docker/Dockerfile) and put its lib64 on LD_LIBRARY_PATH")


@pytest.fixture(scope="module")
def ibm_mq_container():
    reason = docker_unavailable_reason() or ibm_client_unavailable_reason()
    if reason:
        pytest.skip(f"IBM MQ container variant skipped: {reason}")
    from testcontainers.core.container import DockerContainer
    container = (DockerContainer(MQ_IMAGE)
                 .with_env("LICENSE", "accept").with_env("MQ_QMGR_NAME", "QM1")
                 .with_env("MQ_APP_PASSWORD", APP_PASSWORD).with_env("MQ_ADMIN_PASSWORD", APP_PASSWORD)
                 .with_exposed_ports(1414)
                 .with_volume_mapping(MQSC, "/etc/mqm/20-spark-mq.mqsc", "ro"))
    container.start()
    try:
        deadline = time.monotonic() + 240
        while container.exec(["chkmqready"]).exit_code != 0:
            if time.monotonic() > deadline:
                pytest.fail("IBM MQ container did not become ready in 240 s:\n"
                            + container.get_logs()[0].decode(errors="replace")[-3000:])
            time.sleep(2)
        host, port = container.get_container_host_ip(), container.get_exposed_port(1414)
        yield {"queueManager": "QM1", "connName": f"{host}({port})", "channel": "DEV.APP.SVRCONN",
               "user": "app", "password": APP_PASSWORD, "transport": "ibmmq"}
    finally:
        container.stop()


@pytest.fixture(params=["embedded", pytest.param("ibm-mq-container", marks=pytest.mark.docker)])
def target(request, qm) -> dict[str, str]:
    """Connection options of a queue manager that has the queues of mqsc/spark-mq.mqsc."""
    if request.param == "ibm-mq-container":
        return request.getfixturevalue("ibm_mq_container")
    with open(MQSC) as handle:
        qm.run_mqsc(handle.read())
    return {"queueManager": qm.name, "connName": qm.conn_name, "channel": qm.channel, "transport": "embedded"}


# --------------------------------------------------------------------------------------
# The MQ contract, run in a child process (see the module docstring)
# --------------------------------------------------------------------------------------

def run_contract(options: dict[str, str], queue: str) -> dict:
    process = subprocess.run([sys.executable, os.path.abspath(__file__), json.dumps(options), queue],
                             capture_output=True, text=True, timeout=120, env=dict(
                                 job_env(), PYTHONPATH=os.path.dirname(os.path.dirname(__file__))))
    assert process.returncode == 0, explain(process)
    return json.loads(process.stdout.strip().splitlines()[-1])


def contract(options: dict[str, str], queue: str) -> dict:
    """Syncpoint, backout, CorrelId matching, BackoutCount and properties, as facts."""
    from spark_mq.mq.connecting import connect, load_ibmmq
    from spark_mq.mq.properties import read_all, set_property
    from spark_mq.options import parse_connection
    parsed = parse_connection(options)
    ibmmq = load_ibmmq(parsed.transport)
    CMQC = ibmmq.CMQC
    conn = connect(parsed)
    out = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT)
    inq = ibmmq.Queue(conn, queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INQUIRE)
    facts: dict = {}

    def get(syncpoint: bool, correl_id: bytes | None = None, with_properties: bool = False):
        md = ibmmq.MD()
        gmo = ibmmq.GMO(Options=(CMQC.MQGMO_SYNCPOINT if syncpoint else CMQC.MQGMO_NO_SYNCPOINT)
                        | CMQC.MQGMO_NO_WAIT)
        handle = None
        if correl_id is not None:
            md.CorrelId = correl_id
            gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
            gmo.Version = CMQC.MQGMO_VERSION_2
        if with_properties:
            handle = ibmmq.MessageHandle(conn)
            gmo.Options |= CMQC.MQGMO_PROPERTIES_IN_HANDLE
            gmo.Version = CMQC.MQGMO_VERSION_4
            gmo.MsgHandle = handle.msg_handle
        try:
            payload = inq.get(None, md, gmo)
        except ibmmq.MQMIError as exc:
            return exc.reason, None, None
        return md, payload, (read_all(handle, ibmmq) if handle else None)

    while get(False)[1] is not None:   # start from an empty queue
        pass
    for n in range(3):
        out.put(f"backed-out {n}".encode(), ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    conn.backout()
    facts["depth_after_backed_out_puts"] = inq.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    for n in range(1, 4):
        handle = ibmmq.MessageHandle(conn)
        set_property(handle, "n", n, "integer")
        set_property(handle, "colour", ("red", "green", "blue")[n - 1], "string")
        md = ibmmq.MD(CorrelId=f"corr-{n}".encode().ljust(24, b"\0"), Format=CMQC.MQFMT_STRING,
                      Persistence=CMQC.MQPER_PERSISTENT)
        out.put(f"message {n}".encode(), md,
                ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT, Version=CMQC.MQPMO_VERSION_3,
                          OriginalMsgHandle=handle.msg_handle))
    conn.commit()
    facts["depth_after_commit"] = inq.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    # Properties are asked for in a handle: otherwise PROPCTL(COMPAT) hands them over as an
    # MQRFH2 header in front of the payload.
    _, payload, _ = get(False, correl_id=b"corr-2".ljust(24, b"\0"), with_properties=True)
    facts["got_by_correl_id"] = payload.decode()
    md, payload, _ = get(True, with_properties=True)
    facts["first_get"] = (payload.decode(), md.BackoutCount)
    conn.backout()
    md, payload, props = get(True, with_properties=True)
    facts["after_backout"] = (payload.decode(), md.BackoutCount, props)
    conn.commit()
    md, payload, props = get(False, with_properties=True)
    facts["last"] = (payload.decode(), props)
    facts["then"] = get(False)[0]
    out.close()
    inq.close()
    conn.disconnect()
    return facts


def test_mq_contract(target):
    facts = run_contract(target, CONTRACT_QUEUE)
    assert facts["depth_after_backed_out_puts"] == 0
    assert facts["depth_after_commit"] == 3
    assert facts["got_by_correl_id"] == "message 2"
    assert facts["first_get"] == ["message 1", 0]
    assert facts["after_backout"] == ["message 1", 1, {"n": 1, "colour": "red"}]
    assert facts["last"] == ["message 3", {"n": 3, "colour": "blue"}]
    from spark_mq.mqi.constants import CMQC
    assert facts["then"] == CMQC.MQRC_NO_MSG_AVAILABLE


@pytest.mark.spark
def test_connector_round_trip(target, tmp_path):
    """The quickstart pipeline against the target: put with ibmmq, read with the connector
    (exactly once), write with the connector to a second queue, read that into files."""
    args = ["--conn-name", target["connName"], "--queue-manager", target["queueManager"],
            "--channel", target["channel"], "--transport", target["transport"],
            "--messages", "600", "--max-messages-per-trigger", "250", "--output", str(tmp_path / "out")]
    if "user" in target:
        secret = tmp_path / "password"      # never on spark-submit's command line
        secret.write_text(target["password"])
        secret.chmod(0o600)
        args += ["--user", target["user"], "--password-file", str(secret)]
    process = spark_submit("quickstart.py", *args, timeout=480)
    assert process.returncode == 0, explain(process)
    for line in ("rows out           600", "duplicates         0", "missing            0"):
        assert line in process.stdout, explain(process)
    assert "SPARK.MQ.IN=0 SPARK.MQ.OUT=0" in process.stdout


if __name__ == "__main__":
    # Child process of run_contract: python test_real_mq.py '<options json>' QUEUE
    print(json.dumps(contract(json.loads(sys.argv[1]), sys.argv[2])))
