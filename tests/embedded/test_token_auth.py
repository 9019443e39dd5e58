"""Authentication tokens (JWT, MQCSP_AUTH_ID_TOKEN) end to end: an issuer's keys made in the
test (tests/token_issuer.py), the AuthToken stanza of qm.ini in a real embedded queue
manager's data directory, and IBM's ibmmq API sending the token in its MQCSP as IBM MQ
9.3.4 clients do. A valid token's user claim is the user the connection runs as, so CHLAUTH
and the authority records decide what it may do; every token that is not valid is refused
with 2035 and the reason in the queue manager's log (AMQ5783E, AMQ5784E, IBM's error codes),
which never holds the token itself."""
from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import re
import socket
import time

import ibmmq
import pytest
from ibmmq import CMQC

import spark_mq.embedded as embedded
from spark_mq.embedded import wire, wire_verbs
from token_issuer import AUDIENCE, TokenIssuer, b64, compact

APP_CHANNEL = "DEV.APP.SVRCONN"
USERS = {"app": "passw0rd", "admin": "adminpw"}


@pytest.fixture(scope="module")
def issuer(tmp_path_factory) -> TokenIssuer:
    return TokenIssuer(tmp_path_factory.mktemp("issuer"))


@pytest.fixture(scope="module")
def tqm(tmp_path_factory, issuer):
    data_dir = tmp_path_factory.mktemp("qmtoken")
    (data_dir / "qm.ini").write_text(issuer.qm_ini())
    with embedded.EmbeddedQueueManager(str(data_dir), name="QMTOKEN", users=USERS) as manager:
        # failures answered at once: the FAILDLAY wait is test_security.py's to prove
        manager.run_mqsc("""
            ALTER AUTHINFO(DEV.AUTHINFO) AUTHTYPE(IDPWOS) FAILDLAY(0)
            REFRESH SECURITY TYPE(CONNAUTH)
            DEFINE QLOCAL(TOKEN.Q) REPLACE
        """)
        yield manager


def log_of(qm) -> str:
    with open(f"{qm.data_dir}/qmgr.log", encoding="utf-8", errors="replace") as handle:
        return handle.read()


@contextlib.contextmanager
def new_log_lines(qm):
    """The lines the queue manager logs during the `with` (a list, filled at its end)."""
    before = len(log_of(qm))
    lines: list[str] = []
    yield lines
    lines.extend(log_of(qm)[before:].splitlines())


def connect(qm, token: str, channel: str = APP_CHANNEL, options: int = 0) -> ibmmq.QueueManager:
    """A client connection whose MQCSP carries `token` (ibmmq sets AuthenticationType
    MQCSP_AUTH_ID_TOKEN and MQCSP version 3 for it)."""
    csp = ibmmq.CSP()
    csp.Token = token
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING | options)
    return ibmmq.connect(qm.name, channel, qm.conn_name, csp=csp, cno=cno)


def refused(qm, token: str, **kwargs) -> int:
    with pytest.raises(ibmmq.MQMIError) as failure:
        connect(qm, token, **kwargs).disconnect()
    return failure.value.reason


def put_and_get_user(connection, queue: str = "DEV.QUEUE.1") -> str:
    """Put a message and get it back: its MQMD UserIdentifier, the user the queue manager
    set as the connection's."""
    handle = ibmmq.Queue(connection, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD()
        handle.put(b"token", md)
        got = ibmmq.MD(MsgId=md.MsgId)
        handle.get(None, got, ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT))
        return got.UserIdentifier.decode().strip()
    finally:
        handle.close()


# --- valid tokens ------------------------------------------------------------------------------
@pytest.mark.parametrize("alg", ["RS256", "PS384", "ES256", "HS256"])
def test_a_valid_token_connects_as_the_user_its_claim_names(tqm, issuer, alg):
    token = issuer.token(alg=alg, sub="app")
    with new_log_lines(tqm) as lines:
        connection = connect(tqm, token)
        try:
            assert put_and_get_user(connection) == "app"
        finally:
            connection.disconnect()
    assert not [line for line in lines if "AMQ578" in line], lines
    assert token not in log_of(tqm) and token.split(".")[2] not in log_of(tqm)


def test_without_a_token_or_password_the_app_channel_refuses(tqm):
    with pytest.raises(ibmmq.MQMIError) as failure:
        ibmmq.connect(tqm.name, APP_CHANNEL, tqm.conn_name).disconnect()
    assert failure.value.reason == CMQC.MQRC_NOT_AUTHORIZED


# --- tokens that are not valid: 2035, and the log says why --------------------------------
def _expired(issuer):
    return issuer.token(sub="app", exp=int(time.time()) - 60)


def _not_yet(issuer):
    return issuer.token(sub="app", nbf=int(time.time()) + 600)


def _no_exp(issuer):
    return issuer.token(sub="app", exp=None)


def _wrong_audience(issuer):
    return issuer.token(sub="app", aud="another-service")


def _no_audience(issuer):
    return issuer.token(sub="app", aud=None)


def _wrong_key(issuer):
    return issuer.token(sub="app", key=issuer.rogue)


def _alg_none(issuer):
    return compact({"alg": "none", "typ": "JWT"}, issuer.claims(sub="app"))


def _tampered(issuer):
    header, payload, signature = issuer.token(sub="app").split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "admin"
    return ".".join((header, b64(json.dumps(claims).encode()), signature))


def _public_key_as_hmac_secret(issuer):
    # the classic confusion: HS256 "signed" with the issuer's public key, which anyone has
    return issuer.token(alg="HS256", key=issuer.public_pem(), sub="app")


def _too_long(issuer):
    return issuer.token(sub="app", padding="x" * 8200)


def _malformed(issuer):
    return "not-a-jwt"


def _jwe(issuer):
    return ".".join(["eyJhbGciOiJSU0EtT0FFUCJ9"] + ["abc"] * 4)


def _wrong_type(issuer):
    return issuer.token(sub="app", header={"typ": "at+jwt"})


@pytest.mark.parametrize("make, says", [
    (_expired, "expired at"),
    (_not_yet, "not valid before"),
    (_no_exp, "(error code 101): claim 'exp' is missing"),
    (_wrong_audience, "its audience does not name this queue manager's (spark-mq)"),
    (_no_audience, "(error code 101): claim 'aud' is missing"),
    (_wrong_key, "(error code 106)"),
    (_alg_none, "(error code 109): algorithm 'none' is not supported"),
    (_tampered, "(error code 106)"),
    (_public_key_as_hmac_secret, "(error code 106)"),
    (_too_long, "(error code 104): it is longer than the maximum of 8192"),
    (_malformed, "(error code 104)"),
    (_jwe, "(error code 104)"),
    (_wrong_type, "(error code 103)"),
], ids=lambda value: getattr(value, "__name__", "")[1:] or None)
def test_a_token_that_is_not_valid_is_refused_and_logged_without_its_text(tqm, issuer, make,
                                                                          says):
    token = make(issuer)
    with new_log_lines(tqm) as lines:
        assert refused(tqm, token) == CMQC.MQRC_NOT_AUTHORIZED
    said = [line for line in lines if "AMQ5783E" in line]
    assert said and says in said[0], lines
    assert APP_CHANNEL in said[0], said
    if "." in token:
        assert token.split(".")[1] not in log_of(tqm)


def test_a_hand_made_client_sending_a_token_past_the_maximum_is_refused(tqm):
    """An attacker's own client, not ibmmq's: a CONNT whose token is past IBM's maximum but
    within the frame a connection may send before MQCONN is refused with 2035, unparsed."""
    host, port = tqm.conn_name.rstrip(")").split("(")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(wire_verbs.request(wire_verbs.CONNT, tqm.name, "e30." * 3000, "attack",
                                        APP_CHANNEL))
        answer = wire.recv_frame(sock)
    assert answer[:2] == [CMQC.MQCC_FAILED, CMQC.MQRC_NOT_AUTHORIZED], answer


# --- the user claim: the user CHLAUTH and the authority records see -------------------------
def test_the_user_claim_is_the_user_and_authority_records_decide(tqm, issuer):
    token = issuer.token(sub="tokenusr")
    # a user the queue manager has never heard of holds no authority, not even to connect
    with new_log_lines(tqm) as lines:
        assert refused(tqm, token) == CMQC.MQRC_NOT_AUTHORIZED
    assert any("AMQ8077W" in line and "'tokenusr'" in line for line in lines), lines
    tqm.run_mqsc("""
        SET AUTHREC PRINCIPAL('tokenusr') OBJTYPE(QMGR) AUTHADD(CONNECT)
        SET AUTHREC PROFILE('TOKEN.Q') PRINCIPAL('tokenusr') OBJTYPE(QUEUE) AUTHADD(PUT,GET)
    """)
    connection = connect(tqm, token)
    try:
        with pytest.raises(ibmmq.MQMIError) as failure:   # no record names it for DEV.QUEUE.1
            ibmmq.Queue(connection, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT)
        assert failure.value.reason == CMQC.MQRC_NOT_AUTHORIZED
        assert put_and_get_user(connection, "TOKEN.Q") == "tokenusr"
    finally:
        connection.disconnect()


def test_a_token_naming_an_administrator_meets_the_blockuser_rule(tqm, issuer):
    with new_log_lines(tqm) as lines:
        assert refused(tqm, issuer.token(sub="admin")) == CMQC.MQRC_NOT_AUTHORIZED
    assert any("AMQ9776E" in line and "'admin'" in line for line in lines), lines


@pytest.mark.parametrize("claims, code", [
    ({"sub": None}, "(error code 107): the user claim 'sub' is missing"),
    ({"sub": "much-too-long-a-user"}, "(error code 108)"),
    ({"sub": "*MQADMIN"}, "(error code 108)"),
    ({"sub": 42}, "(error code 108)"),
])
def test_a_user_claim_that_is_not_a_user_id_is_refused(tqm, issuer, claims, code):
    with new_log_lines(tqm) as lines:
        assert refused(tqm, issuer.token(**claims)) == CMQC.MQRC_NOT_AUTHORIZED
    said = [line for line in lines if "AMQ5784E" in line]
    assert said and code in said[0], lines


# --- what IBM's client refuses before it sends ---------------------------------------------
def test_a_token_with_automatic_reconnection_is_refused(tqm, issuer):
    assert refused(tqm, issuer.token(sub="app"), options=CMQC.MQCNO_RECONNECT_Q_MGR) \
        == CMQC.MQRC_RECONNECT_INCOMPATIBLE


# --- the configuration: taken at REFRESH SECURITY TYPE(CONNAUTH) ---------------------------
def test_a_broken_or_missing_configuration_answers_security_error_until_mended(tqm, issuer):
    ini = f"{tqm.data_dir}/qm.ini"
    good = issuer.token(sub="app")
    try:
        with open(ini, "w") as handle:
            handle.write(issuer.qm_ini(extra="   Audiance=typo\n"))
        with new_log_lines(tqm) as lines:
            tqm.run_mqsc("REFRESH SECURITY TYPE(CONNAUTH)")
            assert refused(tqm, good) == CMQC.MQRC_SECURITY_ERROR
        assert any("AMQ7076E" in line and "'audiance' is not known" in line for line in lines)
        assert any("AMQ5786E" in line for line in lines), lines
        # a password still works: only token connections depend on the stanza
        ibmmq.connect(tqm.name, APP_CHANNEL, tqm.conn_name, user="app",
                      password="passw0rd").disconnect()
        with open(ini, "w") as handle:
            handle.write("# no AuthToken stanza\n")
        tqm.run_mqsc("REFRESH SECURITY TYPE(CONNAUTH)")
        assert refused(tqm, good) == CMQC.MQRC_SECURITY_ERROR
        with open(ini, "w") as handle:   # ADOPTCTX(YES) with no UserClaim to adopt from
            handle.write(issuer.qm_ini(user_claim=None))
        tqm.run_mqsc("REFRESH SECURITY TYPE(CONNAUTH)")
        assert refused(tqm, good) == CMQC.MQRC_SECURITY_ERROR
    finally:
        with open(ini, "w") as handle:
            handle.write(issuer.qm_ini())
        tqm.run_mqsc("REFRESH SECURITY TYPE(CONNAUTH)")
    connect(tqm, good).disconnect()


def test_an_audience_list_that_names_this_queue_manager_passes(tqm, issuer):
    token = issuer.token(alg="ES256", sub="app", aud=["elsewhere", AUDIENCE])
    connect(tqm, token).disconnect()


# --- the checks one by one, on the queue manager's own code (no process needed) ------------
def _settings(issuer, **changes):
    from spark_mq.embedded.server.core.security import token_config
    settings = token_config.settings_of(
        token_config.auth_token_stanza(issuer.qm_ini(), "qm.ini"), str(issuer.folder), "qm.ini")
    return dataclasses.replace(settings, **changes)


def _verify(issuer, token, now=None, **changes):
    from spark_mq.embedded.server.core.security import tokens
    return tokens.verify(token, _settings(issuer, **changes), now)


def _refusal(issuer, token, now=None, **changes):
    from spark_mq.embedded.server.core.security import tokens
    with pytest.raises(tokens.TokenRefused) as refused:
        _verify(issuer, token, now, **changes)
    return refused.value


def test_the_clock_skew_gives_leeway_on_exp_and_nbf_and_no_more(issuer):
    now = time.time()
    token = issuer.token(sub="app", exp=int(now) - 20, nbf=int(now) - 100)
    assert "expired" in _refusal(issuer, token, now).detail
    assert _verify(issuer, token, now, clock_skew=30).user == "app"
    assert "expired" in _refusal(issuer, token, now + 15, clock_skew=30).detail
    early = issuer.token(sub="app", nbf=int(now) + 20)
    assert "not valid before" in _refusal(issuer, early, now).detail
    assert _verify(issuer, early, now, clock_skew=30).user == "app"


def test_a_name_given_twice_in_the_payload_is_refused(issuer):
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    expires = int(time.time()) + 60
    payload = b64(f'{{"sub": "app", "exp": {expires}, "aud": "{AUDIENCE}", "sub": "admin"}}'
                  .encode())
    signature = b64(issuer.sign("HS256", f"{header}.{payload}".encode()))
    assert _refusal(issuer, f"{header}.{payload}.{signature}").code == 105


def test_a_crit_header_and_an_es256_signature_from_another_curve_are_refused(issuer):
    from cryptography.hazmat.primitives.asymmetric import ec
    assert _refusal(issuer, issuer.token(sub="app", header={"crit": ["exp"]})).code == 104
    p384 = ec.generate_private_key(ec.SECP384R1())
    assert _refusal(issuer, issuer.token(alg="ES384", key=p384, sub="app")).code == 106
    assert _refusal(issuer, issuer.token(alg="ES256", key=issuer.rogue_ec(), sub="app")).code == 106


def test_a_certificate_is_used_only_while_it_is_valid(issuer):
    token = issuer.token(alg="ES256", sub="app")
    assert _verify(issuer, token).user == "app"
    in_three_days = time.time() + 3 * 86400
    assert _refusal(issuer, issuer.token(alg="ES256", sub="app", exp=int(in_three_days) + 60),
                    in_three_days).code == 106


@pytest.mark.parametrize("stanza, says", [
    ("AuthToken:\n   CertLabel=rsa\n", "has no KeyStore"),
    ("AuthToken:\n   KeyStore=issuer\n", "needs 1 to 32 non-empty CertLabel"),
    ("AuthToken:\n   KeyStore=issuer\n   CertLabel=absent\n", "none of"),
    ("AuthToken:\n   KeyStore=issuer\n   CertLabel=rsa\n   AllowOSGroups=NO\n", "AllowOSGroups=NO"),
    ("AuthToken:\n   KeyStore=issuer\n   CertLabel=rsa\n   ClockSkew=forever\n", "ClockSkew"),
    ("AuthToken:\n   KeyStore=issuer\n   CertLabel=rsa\nAuthToken:\n", "a second AuthToken"),
    ("KeyStore=issuer\n", "not a stanza name"),
])
def test_a_stanza_that_cannot_be_used_says_why(issuer, stanza, says):
    from spark_mq.embedded.server.core.security import token_config
    with pytest.raises(token_config.TokenConfigError, match=re.escape(says)):
        parsed = token_config.auth_token_stanza(stanza, "qm.ini")
        token_config.settings_of(parsed or {}, str(issuer.folder), "qm.ini")


@pytest.mark.parametrize("exp", [float("nan"), float("inf"), 10**400, "tomorrow", True])
def test_an_expiry_that_is_no_time_is_refused(issuer, exp):
    assert _refusal(issuer, issuer.token(sub="app", exp=exp)).code == 102
