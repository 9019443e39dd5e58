"""`spark-mq-qmgr browse` and `get` print an MQSTR message as text in its own CCSID: EBCDIC
messages from a mainframe (single- and double-byte) put with ibmmq, read back through the
installed command in a plain shell, as in test_shell_tools.py."""
from __future__ import annotations

import json
import os
import re
import subprocess

import ibmmq
import pytest
from ibmmq import CMQC

from spark_mq.mqi import codepages
from support import activated_environment

MAINFRAME = 785  # MQENC_S390: z/OS's integer, decimal and float encoding
TOOL = "spark-mq-qmgr"


def run(*args: str, cwd, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run([TOOL, *args], cwd=cwd, env=env, capture_output=True, timeout=120)
    assert done.returncode == 0, f"{args}: exit {done.returncode}\n{done.stdout!r}\n{done.stderr!r}"
    return done


def text(done: subprocess.CompletedProcess) -> tuple[str, str]:
    return done.stdout.decode(), done.stderr.decode()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """A queue manager started with `start --background` in a plain shell (as in
    test_shell_tools.py), its conn name in SPARK_MQ_CONN_NAME; stopped at the end."""
    cwd = tmp_path_factory.mktemp("ccsid")
    (cwd / "home").mkdir()
    env = {**activated_environment(), "HOME": str(cwd / "home")}
    data_dir = cwd / "qm"
    out, _ = text(run("start", "--background", "--port", "0", "--data-dir", str(data_dir), cwd=cwd, env=env))
    env["SPARK_MQ_CONN_NAME"] = re.search(r"running at (localhost\(\d+\))", out).group(1)
    yield cwd, env, data_dir
    stopped = subprocess.run([TOOL, "stop", "--data-dir", str(data_dir)], cwd=cwd, env=env,
                             capture_output=True, timeout=120)
    if stopped.returncode != 0:
        os.kill(json.loads((data_dir / "ready.json").read_text())["pid"], 9)


def put_string(env: dict[str, str], queue: str, payload: bytes, ccsid: int) -> None:
    """One MQSTR message of `payload` as it stands in CCSID `ccsid`, put with ibmmq."""
    qmgr = ibmmq.connect("", "DEV.APP.SVRCONN", env["SPARK_MQ_CONN_NAME"])
    try:
        md = ibmmq.MD(Format=CMQC.MQFMT_STRING, CodedCharSetId=ccsid, Encoding=MAINFRAME)
        ibmmq.Queue(qmgr, queue, CMQC.MQOO_OUTPUT).put(payload, md)
    finally:
        qmgr.disconnect()


@pytest.mark.parametrize("ccsid, words", [
    (37, "Order 42: 3 crates, ¬ paid ¢5"),
    (1047, "Zürich [branch] ^ line"),
    (939, "受注 42 件 (東京)"),
])
def test_browse_shows_ebcdic_text_with_its_ccsid(running, ccsid, words):
    if codepages.code_page(ccsid) is None:
        pytest.skip(f"no table for CCSID {ccsid} in this environment (ICU missing)")
    cwd, env, _ = running
    payload = codepages.encode_text(words, ccsid)
    assert payload != words.encode()
    put_string(env, "DEV.QUEUE.1", payload, ccsid)
    browsed, _ = text(run("browse", "DEV.QUEUE.1", cwd=cwd, env=env))
    assert f"payload ({len(payload)} bytes, ccsid {ccsid} (EBCDIC)): {words}" in browsed, browsed
    out, _ = text(run("get", "DEV.QUEUE.1", "--payload-only", cwd=cwd, env=env))
    assert out.splitlines() == [words]


def test_get_json_carries_the_decoded_text(running):
    cwd, env, _ = running
    put_string(env, "DEV.QUEUE.2", codepages.encode_text("hello from CICS", 500), 500)
    [line] = text(run("get", "DEV.QUEUE.2", "--json", cwd=cwd, env=env))[0].splitlines()
    record = json.loads(line)
    assert record["payload"] == "hello from CICS" and record["md"]["CodedCharSetId"] == 500


def test_a_ccsid_without_a_table_is_shown_as_bytes_and_said_so(running):
    cwd, env, _ = running
    payload = b"\xc8\x85\x93\x93\x96"
    put_string(env, "DEV.QUEUE.3", payload, 4321)
    browsed, _ = text(run("browse", "DEV.QUEUE.3", cwd=cwd, env=env))
    assert "payload (5 bytes, ccsid 4321 not convertible):" in browsed, browsed
    assert "00000000:  C885 9393 96" in browsed, browsed
