"""The connector's `token` option and a credentialsProvider's {"token": ...}: sent in the
MQCSP as MQCSP_AUTH_ID_TOKEN to a real embedded queue manager whose qm.ini names the issuer's
keys (tests/token_issuer.py), the token's user claim the user the connection runs as; and
what the options refuse before anything is sent: a token beside user/password or a
provider, a token with `reconnect` (IBM's 2547), a token that is not a JWT. No error, repr or
hint ever shows the token's text."""
from __future__ import annotations

import argparse
import sys
import uuid

import pytest

import spark_mq.embedded as embedded
from spark_mq.errors import MQConnectorError
from spark_mq.jobs.cli import add_extra_option_arguments
from spark_mq.mq.connecting import ConnectionOptions, connect, disconnect_quietly, load_ibmmq
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.options import parse_connection
from token_issuer import TokenIssuer


@pytest.fixture(scope="module")
def issuer(tmp_path_factory) -> TokenIssuer:
    return TokenIssuer(tmp_path_factory.mktemp("issuer"))


@pytest.fixture(scope="module")
def tqm(tmp_path_factory, issuer):
    data_dir = tmp_path_factory.mktemp("qmtokenc")
    (data_dir / "qm.ini").write_text(issuer.qm_ini())
    with embedded.EmbeddedQueueManager(str(data_dir), name="QMTOKENC",
                                       users={"app": "passw0rd"}) as manager:
        manager.run_mqsc("ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY(0)\n"
                         "REFRESH SECURITY TYPE(CONNAUTH)")
        yield manager


def options(qm, **extra) -> ConnectionOptions:
    return ConnectionOptions(queue_manager=qm.name, conn_name=qm.conn_name,
                             transport="embedded", **extra)


def user_of(qmgr) -> str:
    """The user the queue manager runs this connection as: MQMD UserIdentifier of a put."""
    ibmmq = load_ibmmq("embedded")
    queue = ibmmq.Queue(qmgr, "DEV.QUEUE.1", ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD()
        queue.put(b"who", md)
        got = ibmmq.MD(MsgId=md.MsgId)
        queue.get(None, got, ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_NO_WAIT))
        return got.UserIdentifier.decode().strip()
    finally:
        queue.close()


def test_the_token_option_connects_as_the_tokens_user(tqm, issuer):
    qmgr = connect(options(tqm, token=issuer.token(sub="app")))
    try:
        assert user_of(qmgr) == "app"
    finally:
        disconnect_quietly(load_ibmmq("embedded"), qmgr)


def test_a_refused_token_says_so_in_the_hint_without_its_text(tqm, issuer):
    token = issuer.token(sub="app", key=issuer.rogue)
    with pytest.raises(MQConnectorError) as refused:
        connect(options(tqm, token=token))
    text = str(refused.value)
    assert refused.value.reason == 2035, text
    assert "a token the queue manager refused" in text and "AMQ5783E" in text, text
    assert token not in text and token.split(".")[2] not in text


@pytest.fixture
def provider(tmp_path, monkeypatch, issuer):
    name = f"token_provider_{uuid.uuid4().hex[:12]}"
    (tmp_path / f"{name}.py").write_text(
        f"def token():\n    return {{'token': {issuer.token(sub='app')!r}}}\n\n"
        f"def both():\n    return {{'token': 'a.b.c', 'user': 'app'}}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_a_provider_may_return_a_token(tqm, provider):
    qmgr = connect(options(tqm, credentials_provider=f"{provider}:token"))
    try:
        assert user_of(qmgr) == "app"
    finally:
        disconnect_quietly(load_ibmmq("embedded"), qmgr)


def test_a_provider_returning_a_token_and_a_user_is_refused(tqm, provider):
    with pytest.raises(MQOptionError, match="a token together with a user or password"):
        connect(options(tqm, credentials_provider=f"{provider}:both"))


def test_a_providers_token_with_reconnect_is_refused_before_it_is_sent(tqm, provider):
    with pytest.raises(MQOptionError, match="option 'reconnect'.*MQRC_RECONNECT_INCOMPATIBLE"):
        connect(options(tqm, credentials_provider=f"{provider}:token", reconnect=True))


# --- the options ---------------------------------------------------------------------------
BASE = {"connName": "localhost(1414)"}


@pytest.mark.parametrize("beside", [{"user": "app"}, {"password": "pw"},
                                    {"user": "app", "password": "pw"},
                                    {"credentialsProvider": "module:function"}])
def test_token_and_user_or_password_are_refused_naming_both(issuer, beside):
    token = issuer.token(sub="app")
    with pytest.raises(MQOptionError) as refused:
        parse_connection({**BASE, "token": token, **beside})
    text = str(refused.value)
    assert text.startswith("option 'token'"), text
    for name in beside:
        assert f"'{name}'" in text, text
    assert token not in text


def test_token_with_reconnect_is_refused(issuer):
    with pytest.raises(MQOptionError, match="option 'reconnect'.*2547"):
        parse_connection({**BASE, "token": issuer.token(sub="app"), "reconnect": "true"})


@pytest.mark.parametrize("given", ["Bearer abc.def.ghi", "abc.def", "a" * 9000 + ".b.c",
                                   "/path/to/token.jwt"])
def test_a_token_that_is_not_a_jwt_is_refused_without_being_shown(given):
    with pytest.raises(MQOptionError) as refused:
        parse_connection({**BASE, "token": given})
    text = str(refused.value)
    assert "three base64url parts" in text and "characters, not shown" in text, text
    assert given not in text


def test_the_token_is_in_no_repr(issuer):
    token = issuer.token(sub="app")
    parsed = parse_connection({**BASE, "token": token})
    assert parsed.token == token
    assert token not in repr(parsed) and "token" not in repr(parsed)


def test_the_jobs_refuse_a_token_on_the_command_line():
    parser = argparse.ArgumentParser()
    add_extra_option_arguments(parser, "read")
    with pytest.raises(SystemExit):
        parser.parse_args(["--read-option", "token=abc.def.ghi"])
