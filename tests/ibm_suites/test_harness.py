"""The pieces of the IBM-suites harness (run.py) that need none of IBM's sources: the
developer configuration, the start-up hook that gives child Pythons the embedded transport,
and how outcomes and reasons are read."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import ibmmq
import pytest
from ibmmq import CMQC

from ibm_suites import run


@pytest.fixture(scope="module")
def dev_qm(tmp_path_factory):
    manager = run.start_queue_manager(tmp_path_factory.mktemp("ibm-suites-qm"))
    yield manager
    manager.stop()


def test_developer_config_defines_the_dev_queues(dev_qm):
    shown = dev_qm.run_mqsc("DISPLAY QLOCAL('DEV.*')\nDISPLAY QMGR DEADQ")
    for queue in ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "DEV.DEAD.LETTER.QUEUE"):
        assert f"QUEUE({queue})" in shown
    assert "DEADQ(DEV.DEAD.LETTER.QUEUE)" in shown


def test_app_user_puts_and_gets_on_dev_queue_1(dev_qm):
    conn = ibmmq.connect(run.QM_NAME, run.APP_CHANNEL, dev_qm.conn_name, "app", run.PASSWORD)
    try:
        queue = ibmmq.Queue(conn, run.SEED_QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        queue.put(b"hello from the app user")
        got = queue.get(None, ibmmq.MD(), ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        assert got == b"hello from the app user"
        queue.close()
    finally:
        conn.disconnect()


def test_wrong_password_is_refused(dev_qm):
    with pytest.raises(ibmmq.MQMIError) as refused:
        ibmmq.connect(run.QM_NAME, run.APP_CHANNEL, dev_qm.conn_name, "app", "not-the-password")
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED


def test_reset_seed_queue_leaves_exactly_one_message(dev_qm):
    run.reset_seed_queue(dev_qm, with_message=True)
    run.reset_seed_queue(dev_qm, with_message=True)
    shown = dev_qm.run_mqsc(f"DISPLAY QLOCAL('{run.SEED_QUEUE}') CURDEPTH")
    assert "CURDEPTH(1)" in shown
    run.reset_seed_queue(dev_qm, with_message=False)
    assert "CURDEPTH(0)" in dev_qm.run_mqsc(f"DISPLAY QLOCAL('{run.SEED_QUEUE}') CURDEPTH")


def test_child_python_gets_embedded_transport_and_hard_coded_address(dev_qm):
    """What IBM's examples do: import ibmmq (no C extension here) and connect to
    localhost(1414), which the start-up hook sends to the harness's queue manager."""
    program = textwrap.dedent("""
        import ibmmq
        assert ibmmq.ibmmqc.EMBEDDED
        conn = ibmmq.connect('QM1', 'DEV.APP.SVRCONN', '127.0.0.1(1414)', 'app', 'password')
        queue = ibmmq.Queue(conn, 'DEV.QUEUE.2', ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_SHARED)
        queue.put(b'through sitecustomize')
        print(queue.get().decode())
        queue.close()
        conn.disconnect()
    """)
    done = subprocess.run([sys.executable, "-c", program], env=run.child_environment(dev_qm.port),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "through sitecustomize"


def test_mqi_test_environment_names_what_ibm_config_reads():
    env = run.mqi_test_environment(1234)
    assert env["PY_IBMMQ_TEST_QM_PORT"] == "1234"
    assert env["PY_IBMMQ_TEST_QM_CHANNEL"] == "DEV.ADMIN.SVRCONN"
    assert (env["PY_IBMMQ_TEST_QM_APP_USER"], env["PY_IBMMQ_TEST_QM_APP_PASSWORD"]) == ("app", "password")
    assert env["PY_IBMMQ_TEST_QM_CONNAUTH_USE_PW"] == "REQUIRED"
    assert run.mqi_test_environment(1234, "OPTIONAL")["PY_IBMMQ_TEST_QM_CONNAUTH_USE_PW"] == "OPTIONAL"


@pytest.mark.parametrize("text, reason", [
    ("E   mqerrors.MQMIError: MQI Error. Comp 2, Reason 2085: FAILED: MQRC_UNKNOWN_OBJECT_NAME\n"
     "later: Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE", "2085 MQRC_UNKNOWN_OBJECT_NAME"),
    ("MQI Error. Comp 1, Reason 2068: WARNING: MQRC_SELECTOR_NOT_FOR_TYPE",
     "2068 MQRC_SELECTOR_NOT_FOR_TYPE"),
    ("MQI Error is CC:2 [MQCC_FAILED] RC:2059 [MQRC_Q_MGR_NOT_AVAILABLE]", "2059 MQRC_Q_MGR_NOT_AVAILABLE"),
    ("Traceback ...\n  File 'x.py'\nSyntaxError: f-string: unmatched '('",
     "SyntaxError: f-string: unmatched '('"),
    ("\n\nsomething odd\n", "something odd"),
    ("", "no output"),
])
def test_first_reason(text, reason):
    assert run.first_reason(text) == reason


def test_junit_outcomes_reads_status_and_reason():
    report = """<testsuites><testsuite>
      <testcase classname="test_a.T" name="test_ok"/>
      <testcase classname="test_a.T" name="test_fails">
        <failure message="AssertionError: 1 != 2">trace</failure></testcase>
      <testcase classname="test_b.T" name="test_errs">
        <error message="failed on setup">E mqerrors.MQMIError: MQI Error. Comp 2, Reason 2085: FAILED:
MQRC_UNKNOWN_OBJECT_NAME</error></testcase>
      <testcase classname="test_b.T" name="test_skips"><skipped message="not viable"/></testcase>
    </testsuite></testsuites>"""
    assert run.junit_outcomes(report) == [
        run.Outcome("test_a.T.test_ok", "passed"),
        run.Outcome("test_a.T.test_fails", "failed", "AssertionError: 1 != 2"),
        run.Outcome("test_b.T.test_errs", "error", "2085 MQRC_UNKNOWN_OBJECT_NAME"),
        run.Outcome("test_b.T.test_skips", "skipped", "not viable"),
    ]


def test_script_outcome_reads_logged_errors_expected_lines_and_timeouts():
    logged = "INFO:Req:Opening model queue\nERROR:Req:Error opening queue: MQI Error. Comp 2, Reason 2085: " \
             "FAILED: MQRC_UNKNOWN_OBJECT_NAME\nINFO:Req:Application is ending\n"
    assert run.script_outcome("r.py", 0, logged, "Have message") == \
        run.Outcome("r.py", "failed", "2085 MQRC_UNKNOWN_OBJECT_NAME")
    assert run.script_outcome("g.py", 0, "INFO:Get:nothing\n", "Have message").reason == \
        "did not print 'Have message' (no MQ error of its own)"
    assert run.script_outcome("g.py", 0, "INFO:Get:Have message: x\n", "Have message").status == "passed"
    assert run.script_outcome("w.py", None, "", None, 60).reason == \
        "timed out after 60 s (no MQ error of its own)"
    crashed = "Traceback (most recent call last):\n  File 'x'\nmqerrors.MQMIError: MQI Error. Comp 2, " \
              "Reason 2035: FAILED: MQRC_NOT_AUTHORIZED\n"
    assert run.script_outcome("c.py", 1, "RC:2033 printed earlier\n" + crashed).reason == \
        "2035 MQRC_NOT_AUTHORIZED"


def test_server_errors_lists_each_traceback_s_exception(tmp_path):
    log = tmp_path / "qmgr.log"
    log.write_text("INFO started\nERROR closing a connection\nTraceback (most recent call last):\n"
                   "  File 'a.py', line 1\n    x()\nTypeError: open_object() missing 1 argument\nINFO stop\n")
    assert run.server_errors(log) == ["TypeError: open_object() missing 1 argument"]
    assert run.server_errors(tmp_path / "absent.log") == []


def test_plan_runs_the_suites_whose_sources_are_given(tmp_path):
    assert run.plan(run.parse_args(["--dev-patterns", str(tmp_path)])) == ["dev-patterns"]
    assert run.plan(run.parse_args(["--mqi-python", str(tmp_path)])) == \
        ["tests", "password-optional", "examples", "examples-with-access"]
    assert run.plan(run.parse_args(["--mqi-python", str(tmp_path), "--suite", "examples"])) == ["examples"]


def test_a_folder_without_ibm_sources_is_a_harness_error(tmp_path, capsys):
    assert run.main(["--mqi-python", str(tmp_path), "--work-dir", str(tmp_path / "work")]) == 2
    assert "no code/tests/config.py" in capsys.readouterr().err


# --- connect_client_tls.py: what the harness gives it, and what it then gets -----------------
TLS_EXAMPLE_LIKE = textwrap.dedent("""
    import sys
    import ibmmq
    # as IBM's connect_client_tls.py: MQCD with a CipherSpec, MQSCO naming /var/mqm/ssl/key
    cd = ibmmq.CD(ChannelName=b'SYSTEM.SSL.SVRCONN.1', ConnectionName=b'127.0.0.1(1414)',
                  ChannelType=ibmmq.CMQXC.MQCHT_CLNTCONN, TransportType=ibmmq.CMQXC.MQXPT_TCP,
                  SSLCipherSpec=b'ANY_TLS12_OR_HIGHER')
    sco = ibmmq.SCO(KeyRepository=b'/var/mqm/ssl/key')
    cno = ibmmq.CNO(Options=ibmmq.CMQC.MQCNO_CLIENT_BINDING)
    user = sys.argv[1:]
    try:
        qmgr = ibmmq.QueueManager(None)
        if user:
            qmgr.connect_with_options('QM1', cd=cd, sco=sco, cno=cno, user=user[0], password=user[1])
        else:
            qmgr.connect_with_options('QM1', cd, sco, cno=cno)
        print('connected')
    except ibmmq.MQMIError as exc:
        print(exc.reason)
""")


@pytest.fixture(scope="module")
def tls_dev_qm(tmp_path_factory):
    """The examples suite's queue manager: developer config, the example's channel, keys."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make the key repositories")
    qm_keys, client_keys = run.make_key_repositories(tmp_path_factory.mktemp("ibm-suites-keys"))
    manager = run.start_queue_manager(tmp_path_factory.mktemp("ibm-suites-tls-qm"), (run.TLS_EXAMPLE_MQSC,),
                                      tls_key_repository=qm_keys)
    yield manager, client_keys
    manager.stop()


def run_tls_example_like(manager, client_keys: str | None, *user: str) -> str:
    extra = {run.KEY_REPOSITORY_VARIABLE: client_keys} if client_keys else {}
    done = subprocess.run([sys.executable, "-c", TLS_EXAMPLE_LIKE, *user],
                          env=run.child_environment(manager.port, extra),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def qmgr_log(manager) -> str:
    with open(f"{manager.data_dir}/qmgr.log", encoding="utf-8") as handle:
        return handle.read()


def test_the_tls_example_gets_past_tls_and_chlauth_refuses_its_channel(tls_dev_qm):
    manager, client_keys = tls_dev_qm
    assert "SSLCIPH(ANY_TLS12_OR_HIGHER)" in manager.run_mqsc(
        "DISPLAY CHANNEL('SYSTEM.SSL.SVRCONN.1') SSLCIPH SSLCAUTH")
    assert run_tls_example_like(manager, client_keys) == str(CMQC.MQRC_NOT_AUTHORIZED)
    assert run.tls_handshake(qmgr_log(manager), "SYSTEM.SSL.SVRCONN.1") is not None
    # the refusal is CHLAUTH's (SYSTEM.* and the back-stop rule: NOACCESS), not a lack of
    # credentials: the app user with its password is refused as well
    assert run_tls_example_like(manager, client_keys, "app", run.PASSWORD) == str(CMQC.MQRC_NOT_AUTHORIZED)


def test_without_the_redirect_the_hard_coded_key_repository_is_missing(tls_dev_qm):
    manager, _ = tls_dev_qm
    assert run_tls_example_like(manager, None) == str(CMQC.MQRC_KEY_REPOSITORY_ERROR)


def test_tls_handshake_reads_the_queue_managers_log_line():
    line = ("2026-01-01 00:00:00,000 INFO TLS handshake with 127.0.0.1(5) completed for channel "
            "'SYSTEM.SSL.SVRCONN.1': TLSv1.3, TLS_AES_256_GCM_SHA384, client certificate none\n")
    assert run.tls_handshake(line, "SYSTEM.SSL.SVRCONN.1") == "TLSv1.3 TLS_AES_256_GCM_SHA384"
    assert run.tls_handshake(line, "SYSTEM.SSL.SVRCONN.2") is None


# --- test_tls.py: the key repositories and queue manager attributes it asks for --------------
TLS_TEST_LIKE = textwrap.dedent("""
    import os, sys
    import ibmmq as mq
    # as IBM's code/tests/test_tls.py, with the locations and labels the harness gives it
    qm_dir, client_dir = os.environ['PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_QMGR'], \\
        os.environ['PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_CLIENT']
    qm_label, client_label = os.environ['PY_IBMMQ_TEST_TLS_CERT_LABEL_QMGR'], \\
        os.environ['PY_IBMMQ_TEST_TLS_CERT_LABEL_CLIENT']
    client_dn, port = os.environ['PY_IBMMQ_TEST_TLS_CLIENT_DN'], os.environ['SPARK_MQ_IBM_SUITES_PORT']
    admin = mq.connect('QM1', 'DEV.ADMIN.SVRCONN', f'127.0.0.1({port})', 'admin', 'password')
    pcf = mq.PCFExecute(admin, response_wait_interval=10000)
    pcf.MQCMD_CHANGE_Q_MGR([mq.CFST(Parameter=mq.CMQC.MQCA_SSL_KEY_REPOSITORY,
                                    String=os.path.join(qm_dir, qm_label).encode()),
                            mq.CFST(Parameter=mq.CMQC.MQCA_CERT_LABEL, String=qm_label.encode())])
    pcf.MQCMD_CREATE_CHANNEL({mq.CMQCFC.MQCACH_CHANNEL_NAME: b'PYIBMMQ.SSL.SVRCONN',
                              mq.CMQCFC.MQIACH_CHANNEL_TYPE: mq.CMQXC.MQCHT_SVRCONN,
                              mq.CMQCFC.MQCACH_SSL_CIPHER_SPEC: b'ANY_TLS12_OR_HIGHER',
                              mq.CMQCFC.MQCACH_SSL_PEER_NAME: client_dn.encode(),
                              mq.CMQCFC.MQIACH_SSL_CLIENT_AUTH: mq.CMQXC.MQSCA_OPTIONAL,
                              mq.CMQC.MQCA_CERT_LABEL: qm_label.encode(),
                              mq.CMQCFC.MQIACF_REPLACE: mq.CMQCFC.MQRP_YES})
    pcf.MQCMD_SET_CHLAUTH_REC({mq.CMQCFC.MQCACH_CHANNEL_NAME: b'PYIBMMQ.SSL.SVRCONN',
                               mq.CMQCFC.MQIACF_CHLAUTH_TYPE: mq.CMQCFC.MQCAUT_USERMAP,
                               mq.CMQCFC.MQIACF_ACTION: mq.CMQCFC.MQACT_REPLACE,
                               mq.CMQCFC.MQCACH_CLIENT_USER_ID: b'admin',
                               mq.CMQC.MQIA_CHECK_CLIENT_BINDING: mq.CMQCFC.MQCHK_REQUIRED_ADMIN,
                               mq.CMQCFC.MQIACH_USER_SOURCE: mq.CMQC.MQUSRC_MAP,
                               mq.CMQCFC.MQCACH_MCA_USER_ID: b'mqm'})
    # lifts crtmqm's BLOCKUSER('*MQADMIN') for this channel, which would block mqm
    pcf.MQCMD_SET_CHLAUTH_REC([
        mq.CFST(Parameter=mq.CMQCFC.MQCACH_CHANNEL_NAME, String=b'PYIBMMQ.SSL.SVRCONN'),
        mq.CFIN(Parameter=mq.CMQCFC.MQIACF_CHLAUTH_TYPE, Value=mq.CMQCFC.MQCAUT_BLOCKUSER),
        mq.CFST(Parameter=mq.CMQCFC.MQCACH_MCA_USER_ID_LIST, String=b'nobody'),
        mq.CFIN(Parameter=mq.CMQCFC.MQIACF_ACTION, Value=mq.CMQCFC.MQACT_REPLACE)])
    cd = mq.CD(Version=mq.CMQXC.MQCD_VERSION_7, ChannelName=b'PYIBMMQ.SSL.SVRCONN',
               ConnectionName=f'127.0.0.1({port})'.encode(), QuantumSafeAlgorithm=1,
               SSLCipherSpec=b'ANY_TLS12_OR_HIGHER')
    sco = mq.SCO(Version=mq.CMQC.MQSCO_VERSION_5, KeyRepository=os.path.join(client_dir, client_label),
                 CertificateLabel=client_label)
    qmgr = mq.QueueManager(None)
    try:
        qmgr.connect_with_options('QM1', cd, sco, opts=mq.CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK,
                                  user=sys.argv[1], password=sys.argv[2])
        print('connected', qmgr.is_connected)
        qmgr.disconnect()
    except mq.MQMIError as exc:
        print(exc.reason)
""")


@pytest.fixture(scope="module")
def tls_test_qm(tmp_path_factory):
    """The tests suite's queue manager (the developer configuration) and test_tls.py's
    environment, its key repositories made."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make the key repositories")
    env = run.tls_test_environment(tmp_path_factory.mktemp("ibm-suites-tls-test"))
    manager = run.start_queue_manager(tmp_path_factory.mktemp("ibm-suites-tls-test-qm"))
    yield manager, env
    manager.stop()


def run_tls_test_like(manager, env: dict[str, str], user: str, password: str) -> str:
    done = subprocess.run([sys.executable, "-c", TLS_TEST_LIKE, user, password],
                          env=run.child_environment(manager.port, env),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def test_tls_test_environment_lays_out_the_repositories_test_tls_names(tls_test_qm):
    _, env = tls_test_qm
    assert env["PY_IBMMQ_TEST_TLS_SKIP"] == "0"
    qm_stem = f"{env['PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_QMGR']}/{env['PY_IBMMQ_TEST_TLS_CERT_LABEL_QMGR']}"
    client_stem = f"{env['PY_IBMMQ_TEST_TLS_KEY_REPO_LOCATION_CLIENT']}/client"
    for path in (f"{qm_stem}.mqtest.crt", f"{qm_stem}.mqtest.key", f"{qm_stem}.ca.pem",
                 f"{client_stem}.client.crt", f"{client_stem}.client.key", f"{client_stem}.ca.pem"):
        assert os.path.isfile(path), path
    with open(f"{client_stem}.client.crt") as client_crt, open(f"{qm_stem}.ca.pem") as trusted:
        assert client_crt.read() == trusted.read()   # each side trusts the other's certificate


def test_what_test_tls_does_connects_over_tls_as_admin(tls_test_qm):
    manager, env = tls_test_qm
    assert run_tls_test_like(manager, env, "admin", run.PASSWORD) == "connected True"
    assert run.tls_handshake(qmgr_log(manager), "PYIBMMQ.SSL.SVRCONN") is not None
    shown = manager.run_mqsc("DISPLAY QMGR SSLKEYR CERTLABL")
    assert "CERTLABL(mqtest)" in shown and "/mqtest)" in shown
    # the channel's USERMAP admits admin alone, and CHCKCLNT(REQDADM) wants its password
    assert run_tls_test_like(manager, env, "admin", "wrong") == str(CMQC.MQRC_NOT_AUTHORIZED)
    assert run_tls_test_like(manager, env, "app", run.PASSWORD) == str(CMQC.MQRC_NOT_AUTHORIZED)


# --- the password-optional suite's queue manager -----------------------------------------------
@pytest.fixture(scope="module")
def optional_qm(tmp_path_factory):
    manager = run.start_queue_manager(tmp_path_factory.mktemp("ibm-suites-optional-qm"),
                                      (run.PASSWORD_OPTIONAL_MQSC,))
    yield manager
    manager.stop()


def test_password_optional_config_is_what_test_queue_manager_reads(optional_qm):
    assert "CHCKCLNT(OPTIONAL)" in optional_qm.run_mqsc("DISPLAY AUTHINFO('DEV.AUTHINFO') CHCKCLNT")
    assert "CHCKCLNT(ASQMGR)" in optional_qm.run_mqsc("DISPLAY CHLAUTH('DEV.APP.SVRCONN')")


def test_without_a_password_the_app_channel_admits_and_the_admin_channel_refuses(optional_qm):
    conn = ibmmq.connect(run.QM_NAME, run.APP_CHANNEL, optional_qm.conn_name)   # runs as MCAUSER app
    try:
        queue = ibmmq.Queue(conn, run.SEED_QUEUE, CMQC.MQOO_OUTPUT)
        queue.put(b"no password needed")
        queue.close()
    finally:
        conn.disconnect()
    run.reset_seed_queue(optional_qm, with_message=False)
    with pytest.raises(ibmmq.MQMIError) as refused:   # the back-stop rule: not client user admin
        ibmmq.connect(run.QM_NAME, run.ADMIN_CHANNEL, optional_qm.conn_name)
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED


def test_with_a_password_optional_a_wrong_one_is_still_refused(optional_qm):
    with pytest.raises(ibmmq.MQMIError) as refused:
        ibmmq.connect(run.QM_NAME, run.APP_CHANNEL, optional_qm.conn_name, "app", "not-the-password")
    assert refused.value.reason == CMQC.MQRC_NOT_AUTHORIZED
    ibmmq.connect(run.QM_NAME, run.ADMIN_CHANNEL, optional_qm.conn_name, "admin", run.PASSWORD).disconnect()


# --- the examples-with-access suite: what it runs, and that each grant it adds is needed -------
def test_the_access_suite_runs_exactly_the_examples_the_developer_config_refuses():
    assert set(run.ACCESS_EXPECT) == set(run.DEVELOPER_CONFIG_REFUSALS)
    assert "get_wait_truncated_message.py" not in run.ACCESS_EXPECT   # IBM's code, not a refusal
    assert all(run.EXAMPLE_NOTES[name] == note for name, note in run.DEVELOPER_CONFIG_REFUSALS.items())


def test_an_example_missing_from_ibm_s_copy_is_skipped_not_failed(tmp_path):
    (tmp_path / "code" / "examples").mkdir(parents=True)
    result = run.run_examples_with_access(tmp_path, tmp_path, 60)
    assert [outcome.status for outcome in result.outcomes] == ["skipped"] * len(run.DEVELOPER_CONFIG_REFUSALS)
    assert result.outcomes[0].reason == "not in this copy of code/examples"


def test_a_program_still_running_passes_only_error_free_and_with_its_line():
    assert run.still_running_outcome("p.py", "INFO:root:Got response message x\n", "Got response").status \
        == "passed"
    assert run.still_running_outcome("p.py", "INFO:root:Put request\n", "Got response").status == "failed"
    died = "Exception in thread Thread-1:\nTraceback (most recent call last):\n  File 'x'\n" \
           "mqerrors.MQMIError: MQI Error. Comp 2, Reason 2035: FAILED: MQRC_NOT_AUTHORIZED\n"
    assert run.still_running_outcome("p.py", died).reason == "2035 MQRC_NOT_AUTHORIZED"


@pytest.fixture(scope="module")
def access_qm(tmp_path_factory):
    """The examples-with-access suite's queue manager (key repositories when openssl is there)."""
    qm_keys = client_keys = None
    if shutil.which("openssl") is not None:
        qm_keys, client_keys = run.make_key_repositories(tmp_path_factory.mktemp("ibm-suites-access-keys"))
    manager = run.start_queue_manager(tmp_path_factory.mktemp("ibm-suites-access-qm"), run.ACCESS_MQSC,
                                      tls_key_repository=qm_keys)
    yield manager, client_keys
    manager.stop()


def open_reason(manager, od: dict, options: int) -> int:
    """MQOPEN as the examples do, on DEV.APP.SVRCONN without a user and password (as app)."""
    conn = ibmmq.connect(run.QM_NAME, run.APP_CHANNEL, manager.conn_name)
    try:
        queue = ibmmq.Queue(conn, ibmmq.OD(**od), options)
        queue.close()
        return CMQC.MQRC_NONE
    except ibmmq.MQMIError as exc:
        return exc.reason
    finally:
        conn.disconnect()


Q1 = {"ObjectName": b"DEV.QUEUE.1"}
AS_ALTUSR = {**Q1, "AlternateUserId": b"altusr"}
MODEL = {"ObjectName": b"SYSTEM.DEFAULT.MODEL.QUEUE", "DynamicQName": b"MY.REPLIES.*"}
APP_QMGR = "PRINCIPAL('app') OBJTYPE(QMGR)"
APP_Q1 = "PROFILE('DEV.QUEUE.1') PRINCIPAL('app') OBJTYPE(QUEUE)"


@pytest.mark.parametrize("od, options, record, authority", [
    # alternate_user_id.py: app may use another user's authority, and altusr may put
    (AS_ALTUSR, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY, APP_QMGR, "ALTUSR"),
    (AS_ALTUSR, CMQC.MQOO_OUTPUT | CMQC.MQOO_ALTERNATE_USER_AUTHORITY,
     "PROFILE('DEV.QUEUE.1') PRINCIPAL('altusr') OBJTYPE(QUEUE)", "PUT"),
    # set_identity.py: SETID on the queue and on the queue manager
    (Q1, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT, APP_Q1, "SETID"),
    (Q1, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_IDENTITY_CONTEXT, APP_QMGR, "SETID"),
    # inq_set.py and put_async_message.py
    (Q1, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE, APP_Q1, "SET"),
    (Q1, CMQC.MQOO_SET | CMQC.MQOO_OUTPUT, APP_Q1, "SET"),
    # dynamic_queues.py: the model queue, for input, and displayed to copy its attributes
    (MODEL, CMQC.MQOO_INPUT_EXCLUSIVE, "PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') "
     "OBJTYPE(QUEUE)", "GET"),
    (MODEL, CMQC.MQOO_INPUT_EXCLUSIVE, "PROFILE('SYSTEM.DEFAULT.MODEL.QUEUE') PRINCIPAL('app') "
     "OBJTYPE(QUEUE)", "DSP"),
    # dlq_browse.py
    ({"ObjectName": b"SYSTEM.DEAD.LETTER.QUEUE"}, CMQC.MQOO_BROWSE,
     "PROFILE('SYSTEM.DEAD.LETTER.QUEUE') PRINCIPAL('app') OBJTYPE(QUEUE)", "BROWSE"),
])
def test_each_grant_of_example_access_is_needed(access_qm, od, options, record, authority):
    manager, _ = access_qm
    assert open_reason(manager, od, options) == CMQC.MQRC_NONE
    manager.run_mqsc(f"SET AUTHREC {record} AUTHRMV({authority})")
    try:
        assert open_reason(manager, od, options) == CMQC.MQRC_NOT_AUTHORIZED
    finally:
        manager.run_mqsc(f"SET AUTHREC {record} AUTHADD({authority})")


def test_app_keeps_what_dev_star_star_gave_it_on_dev_queue_1(access_qm):
    manager, _ = access_qm   # the most specific profile counts: the record repeats DEV.**'s
    shown = manager.run_mqsc("DISPLAY AUTHREC PROFILE('DEV.QUEUE.1') PRINCIPAL('app') OBJTYPE(QUEUE)")
    assert "AUTHLIST(BROWSE,GET,INQ,PUT,SET,SETID)" in shown
    assert open_reason(manager, Q1, CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
                       | CMQC.MQOO_INQUIRE) == CMQC.MQRC_NONE


def test_the_tls_example_s_channel_is_admitted_as_app_by_its_rule_alone(access_qm):
    manager, client_keys = access_qm
    if client_keys is None:
        pytest.skip("needs the openssl command to make the key repositories")
    assert run_tls_example_like(manager, client_keys) == "connected"
    assert "MCAUSER(app)" in manager.run_mqsc("DISPLAY CHLAUTH('SYSTEM.SSL.SVRCONN.1') MATCH(EXACT) ALL")
    rule = "SET CHLAUTH('SYSTEM.SSL.SVRCONN.1') TYPE(ADDRESSMAP) ADDRESS('*')"
    manager.run_mqsc(f"{rule} ACTION(REMOVE)")
    try:
        assert run_tls_example_like(manager, client_keys) == str(CMQC.MQRC_NOT_AUTHORIZED)
    finally:
        manager.run_mqsc(f"{rule} USERSRC(MAP) MCAUSER('app') ACTION(REPLACE)")
