"""TLS as IBM MQ does it (issue 10), through the ibmmq API against a real embedded queue manager:
channels with SSLCIPH, CipherSpec aliases and single suites, key repositories as PEM files
(SSLKEYR, MQSCO.KeyRepository, MQSSLKEYR), certificate labels (CERTLABL, MQSCO and MQCD
CertificateLabel), SSLCAUTH, SSLPEER and MQCD.SSLPeerName, a JSON CCDT's transmissionSecurity,
SSLCIPH validation (MQSC and PCF), and the reasons each refusal gives.
Certificates are made by tests/tls_keys.py with the openssl command."""
from __future__ import annotations

import json
import os
import shutil

import ibmmq
import pytest
from ibmmq import CMQC, CMQCFC, CMQXC

import spark_mq.embedded as embedded
from spark_mq.embedded.tls import channel_names, cipher_specs, distinguished_names
from tls_keys import KeyRepositories

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")

CHANNELS = """
DEFINE CHANNEL(TLS.ANY) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(TLS.MUTUAL) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER)
DEFINE CHANNEL(TLS.PEER) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12_OR_HIGHER) SSLPEER('CN=app, O=Spark')
DEFINE CHANNEL(TLS.V12) CHLTYPE(SVRCONN) SSLCIPH(ANY_TLS12) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(TLS.RSA128) CHLTYPE(SVRCONN) SSLCIPH(ECDHE_RSA_AES_128_GCM_SHA256) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(TLS.AES128) CHLTYPE(SVRCONN) SSLCIPH(TLS_AES_128_GCM_SHA256) SSLCAUTH(OPTIONAL)
DEFINE CHANNEL(TLS.LABEL) CHLTYPE(SVRCONN) SSLCIPH(ANY) SSLCAUTH(OPTIONAL) CERTLABL('other')
DEFINE CHANNEL(TLS.BADCIPH) CHLTYPE(SVRCONN) SSLCIPH(TLS_RSA_WITH_AES_128_CBC_SHA) SSLCAUTH(OPTIONAL)
DEFINE QLOCAL(TLS.Q)
"""


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> KeyRepositories:
    return KeyRepositories(str(tmp_path_factory.mktemp("keys")))


@pytest.fixture(scope="module")
def tls_qm(tmp_path_factory, keys):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("tlsqm")), name="QM1",
                                       mqsc=CHANNELS, tls_key_repository=keys.qm) as manager:
        yield manager


def connect(qm, channel: str, cipher_spec: str, repository: str | None = "", label: str = "",
            peer_name: str = "", cd_label: str = "", cd_version: int = 0,
            **quantum_safe: int) -> ibmmq.QueueManager:
    """A connection through MQCD + MQSCO, as IBM's connect_client_tls.py example makes one;
    repository None: no MQSCO at all. `quantum_safe`: the MQCD's QuantumSafeAlgorithm and
    QuantumSafeRequired (ibmmq then sends an MQCD of version 13)."""
    cd = ibmmq.CD(ChannelName=channel.encode(), ConnectionName=qm.conn_name.encode(),
                  ChannelType=ibmmq.CMQXC.MQCHT_CLNTCONN, TransportType=ibmmq.CMQXC.MQXPT_TCP,
                  SSLCipherSpec=cipher_spec.encode(), **quantum_safe)
    if peer_name:
        cd.SSLPeerNamePtr = peer_name.encode()
    if cd_label:
        cd.Version = max(cd.Version, CMQXC.MQCD_VERSION_11)  # IBM reads the label from v11 only
        cd.CertificateLabel = cd_label.encode()
    if cd_version:
        cd.Version = cd_version
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING)
    manager = ibmmq.QueueManager(None)
    if repository is None:
        manager.connect_with_options(qm.name, cd=cd, cno=cno)
    else:
        sco = ibmmq.SCO(KeyRepository=repository.encode(), CertificateLabel=label.encode())
        manager.connect_with_options(qm.name, cd=cd, sco=sco, cno=cno)
    return manager


def refused(qm, channel: str, cipher_spec: str, repository: str | None = "", **options) -> int:
    with pytest.raises(ibmmq.MQMIError) as exc:
        connect(qm, channel, cipher_spec, repository, **options).disconnect()
    return exc.value.reason


def round_trip(manager: ibmmq.QueueManager, body: bytes = b"over TLS") -> bytes:
    try:
        ibmmq.Queue(manager, "TLS.Q").put(body)
        return ibmmq.Queue(manager, "TLS.Q").get()
    finally:
        manager.disconnect()


def log_of(qm) -> str:
    with open(os.path.join(qm.data_dir, "qmgr.log"), encoding="utf-8") as handle:
        return handle.read()


# --- a TLS channel, and what its SSLCIPH lets in -----------------------------------------
def test_a_tls_client_puts_and_gets_through_a_channel_with_sslciph(tls_qm, keys):
    assert round_trip(connect(tls_qm, "TLS.ANY", "ANY_TLS12_OR_HIGHER", keys.client)) == b"over TLS"


def test_tls_and_plain_clients_share_the_port(tls_qm, keys):
    plain = ibmmq.connect(tls_qm.name, "DEV.APP.SVRCONN", tls_qm.conn_name)
    secure = connect(tls_qm, "TLS.ANY", "ANY", keys.client)
    ibmmq.Queue(plain, "TLS.Q").put(b"plain")
    assert ibmmq.Queue(secure, "TLS.Q").get() == b"plain"
    plain.disconnect()
    secure.disconnect()


def test_a_plain_client_on_a_channel_with_sslciph_gets_2393(tls_qm):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.connect(tls_qm.name, "TLS.ANY", tls_qm.conn_name)
    assert exc.value.reason == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9639E: remote channel 'TLS.ANY'" in log_of(tls_qm)


def test_a_tls_client_on_a_channel_without_sslciph_gets_2393(tls_qm, keys):
    assert refused(tls_qm, "DEV.APP.SVRCONN", "ANY_TLS12", keys.client) == CMQC.MQRC_SSL_INITIALIZATION_ERROR


def test_an_unknown_channel_over_tls_is_still_2540(tls_qm, keys):
    assert refused(tls_qm, "NO.SUCH.CHL", "ANY_TLS12", keys.client) == CMQC.MQRC_UNKNOWN_CHANNEL_NAME


@pytest.mark.parametrize("channel, cipher_spec", [
    ("TLS.V12", "ANY_TLS12"),
    ("TLS.V12", "ECDHE_RSA_AES_256_GCM_SHA384"),
    ("TLS.RSA128", "ECDHE_RSA_AES_128_GCM_SHA256"),
    ("TLS.AES128", "TLS_AES_128_GCM_SHA256"),
    ("TLS.ANY", "ANY_TLS13"),
    ("TLS.ANY", "TLS_AES_256_GCM_SHA384"),
    ("TLS.ANY", "ANY_TLS13_OR_HIGHER"),
])
def test_matching_cipherspecs_connect(tls_qm, keys, channel, cipher_spec):
    assert round_trip(connect(tls_qm, channel, cipher_spec, keys.client)) == b"over TLS"


@pytest.mark.parametrize("channel, cipher_spec, server_message", [
    # no protocol in common: the handshake fails
    ("TLS.V12", "ANY_TLS13", None),
    # a minimum-protocol client and a fixed-protocol channel: TLS 1.3 is negotiated, and
    # refused, as IBM's "Relationship between alias CipherSpec settings" warns
    ("TLS.V12", "ANY_TLS12_OR_HIGHER", "AMQ9631E"),
    # the strongest TLS 1.2 suite both share is not the one the channel names
    ("TLS.RSA128", "ANY_TLS12", "AMQ9631E"),
    ("TLS.AES128", "ANY_TLS13", "AMQ9631E"),
    ("TLS.AES128", "TLS_AES_256_GCM_SHA384", "AMQ9631E"),
    # a channel whose SSLCIPH names a deprecated CipherSpec, which is not enabled
    ("TLS.BADCIPH", "ANY_TLS12_OR_HIGHER", "AMQ9635E"),
])
def test_cipherspec_mismatches_get_2393(tls_qm, keys, channel, cipher_spec, server_message):
    assert refused(tls_qm, channel, cipher_spec, keys.client) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    if server_message:
        assert f"{server_message}" in log_of(tls_qm) and f"'{channel}'" in log_of(tls_qm)


def test_an_unknown_client_cipherspec_gets_2393(tls_qm, keys):
    assert refused(tls_qm, "TLS.ANY", "RC4_NOT_A_SPEC", keys.client) == CMQC.MQRC_SSL_INITIALIZATION_ERROR


# --- key repositories ----------------------------------------------------------------------
def test_a_client_without_a_key_repository_gets_2381(tls_qm, monkeypatch):
    monkeypatch.delenv("MQSSLKEYR", raising=False)
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", "") == CMQC.MQRC_KEY_REPOSITORY_ERROR
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", None) == CMQC.MQRC_KEY_REPOSITORY_ERROR
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", "/nonexistent/key") == CMQC.MQRC_KEY_REPOSITORY_ERROR


def test_the_mqsslkeyr_environment_variable_names_the_repository(tls_qm, keys, monkeypatch):
    monkeypatch.setenv("MQSSLKEYR", keys.client)
    assert round_trip(connect(tls_qm, "TLS.ANY", "ANY_TLS12", None)) == b"over TLS"


def test_a_repository_named_with_ibms_kdb_extension_is_the_same_stem(tls_qm, keys):
    assert round_trip(connect(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client + ".kdb")) == b"over TLS"


def test_a_queue_manager_the_client_does_not_trust_gets_2393(tls_qm, keys):
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", keys.untrusting) == CMQC.MQRC_SSL_INITIALIZATION_ERROR


def test_sslkeyr_and_certlabl_are_queue_manager_attributes(tls_qm, keys):
    shown = tls_qm.run_mqsc("DISPLAY QMGR SSLKEYR CERTLABL")
    assert f"SSLKEYR({keys.qm})" in shown and "CERTLABL( )" in shown
    tls_qm.run_mqsc("ALTER QMGR SSLKEYR('/nonexistent/key')")
    try:
        # without its key the queue manager cannot serve TLS; plain clients are not affected
        assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
        assert "AMQ9657E" in log_of(tls_qm)
        ibmmq.connect(tls_qm.name, "DEV.APP.SVRCONN", tls_qm.conn_name).disconnect()
    finally:
        tls_qm.run_mqsc(f"ALTER QMGR SSLKEYR('{keys.qm}')")
    assert round_trip(connect(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client)) == b"over TLS"


# --- client certificates: SSLCAUTH and SSLPEER ---------------------------------------------
def test_sslcauth_required_refuses_a_client_without_a_certificate(tls_qm, keys):
    assert "SSLCAUTH(REQUIRED)" in tls_qm.run_mqsc("DISPLAY CHANNEL(TLS.MUTUAL) SSLCAUTH")
    assert refused(tls_qm, "TLS.MUTUAL", "ANY_TLS12", keys.client) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9637E: channel 'TLS.MUTUAL' is lacking a certificate" in log_of(tls_qm)


@pytest.mark.parametrize("where", ["sco", "cd", "environment"])
def test_the_certificate_label_selects_the_client_certificate(tls_qm, keys, monkeypatch, where):
    options = {"sco": {"label": "app"}, "cd": {"cd_label": "app"}, "environment": {}}[where]
    if where == "environment":
        monkeypatch.setenv("MQCERTLABL", "app")
    assert round_trip(connect(tls_qm, "TLS.MUTUAL", "ANY_TLS12_OR_HIGHER", keys.client,
                              **options)) == b"over TLS"


def test_an_mqcd_before_version_11_has_no_certificate_label(tls_qm, keys):
    # IBM ignores MQCD.CertificateLabel in an MQCD of version 10 or less: no certificate is sent
    assert refused(tls_qm, "TLS.MUTUAL", "ANY_TLS12", keys.client, cd_label="app",
                   cd_version=CMQXC.MQCD_VERSION_10) == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9637E: channel 'TLS.MUTUAL' is lacking a certificate" in log_of(tls_qm)


def test_a_label_the_repository_lacks_gets_2381(tls_qm, keys):
    assert refused(tls_qm, "TLS.MUTUAL", "ANY_TLS12", keys.client,
                   label="nosuchlabel") == CMQC.MQRC_KEY_REPOSITORY_ERROR


def test_a_client_certificate_the_queue_manager_does_not_trust_gets_2393(tls_qm, keys):
    assert refused(tls_qm, "TLS.MUTUAL", "ANY_TLS12", keys.client,
                   label="stranger") == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert refused(tls_qm, "TLS.MUTUAL", "ANY_TLS13", keys.client,
                   label="stranger") == CMQC.MQRC_SSL_INITIALIZATION_ERROR


def test_sslpeer_admits_only_matching_client_certificates(tls_qm, keys):
    assert round_trip(connect(tls_qm, "TLS.PEER", "ANY_TLS12", keys.client, label="app")) == b"over TLS"
    assert refused(tls_qm, "TLS.PEER", "ANY_TLS12", keys.client,
                   label="rogue") == CMQC.MQRC_SSL_INITIALIZATION_ERROR
    assert "AMQ9636E" in log_of(tls_qm) and "CN=rogue,O=Elsewhere" in log_of(tls_qm)


# --- the queue manager's certificate: SSLPeerName and CERTLABL ---------------------------------
@pytest.mark.parametrize("peer_name", ["CN=QM1.server", "CN=qm1.*, O=Spark", "O=spark;CN=*server"])
def test_sslpeername_matching_the_queue_managers_dn_connects(tls_qm, keys, peer_name):
    manager = connect(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client, peer_name=peer_name)
    assert round_trip(manager) == b"over TLS"


def test_sslpeername_not_matching_gets_2398(tls_qm, keys):
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client,
                   peer_name="CN=QM2.*") == CMQC.MQRC_SSL_PEER_NAME_MISMATCH


@pytest.mark.parametrize("peer_name", ["XX=QM1", "cn=QM1", "CN=Q*M1", "CN"])
def test_an_sslpeername_that_breaks_ibms_rules_gets_2399(tls_qm, keys, peer_name):
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client,
                   peer_name=peer_name) == CMQC.MQRC_SSL_PEER_NAME_ERROR


def test_a_channel_certlabl_presents_that_certificate(tls_qm, keys):
    assert round_trip(connect(tls_qm, "TLS.LABEL", "ANY_TLS12", keys.client,
                              peer_name="CN=QM1.other")) == b"over TLS"
    assert refused(tls_qm, "TLS.ANY", "ANY_TLS12", keys.client,
                   peer_name="CN=QM1.other") == CMQC.MQRC_SSL_PEER_NAME_MISMATCH


# --- quantum-safe key exchange (MQCD version 13) -------------------------------------------------
def _openssl_has_ml_kem() -> bool:
    import ssl

    from spark_mq.embedded.tls import tls13
    return tls13.set_groups(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT), ["X25519MLKEM768"])


HAS_ML_KEM = _openssl_has_ml_kem()


@pytest.mark.parametrize("algorithm", [CMQXC.MQQS_HYBMLKEM, CMQXC.MQQS_MLKEM])
def test_an_optional_quantum_safe_key_exchange_connects_either_way(tls_qm, keys, algorithm):
    # what IBM's test_tls.py asks for (QuantumSafeAlgorithm=1, QuantumSafeRequired left 0)
    manager = connect(tls_qm, "TLS.ANY", "ANY_TLS12_OR_HIGHER", keys.client,
                      QuantumSafeAlgorithm=algorithm, QuantumSafeRequired=CMQXC.MQQSR_OPTIONAL)
    assert round_trip(manager) == b"over TLS"


@pytest.mark.parametrize("cipher_spec, algorithm", [
    ("ANY_TLS12", CMQXC.MQQS_HYBMLKEM),                   # ML-KEM needs TLS 1.3
    ("ANY_TLS12_OR_HIGHER", CMQXC.MQQS_UNPROTECTED),      # required, but no algorithm named
])
def test_a_required_quantum_safe_key_exchange_that_cannot_be_had_gets_2393(tls_qm, keys, cipher_spec,
                                                                          algorithm):
    assert refused(tls_qm, "TLS.ANY", cipher_spec, keys.client, QuantumSafeAlgorithm=algorithm,
                   QuantumSafeRequired=CMQXC.MQQSR_REQUIRED) == CMQC.MQRC_SSL_INITIALIZATION_ERROR


def test_a_required_quantum_safe_key_exchange_connects_exactly_when_openssl_has_ml_kem(tls_qm, keys):
    """Required means never without it: with ML-KEM in this Python's OpenSSL (3.5 or later)
    the connection is made, without it refused with 2393 before any handshake."""
    options = {"QuantumSafeAlgorithm": CMQXC.MQQS_HYBMLKEM, "QuantumSafeRequired": CMQXC.MQQSR_REQUIRED}
    if HAS_ML_KEM:
        manager = connect(tls_qm, "TLS.ANY", "ANY_TLS12_OR_HIGHER", keys.client, **options)
        assert round_trip(manager) == b"over TLS"
    else:
        assert refused(tls_qm, "TLS.ANY", "ANY_TLS12_OR_HIGHER", keys.client,
                       **options) == CMQC.MQRC_SSL_INITIALIZATION_ERROR


# --- other ways to name the channel -----------------------------------------------------------
def test_a_ccdt_channel_with_a_cipher_specification_connects_over_tls(tls_qm, keys, monkeypatch, tmp_path):
    host, port = tls_qm.conn_name.rstrip(")").split("(")
    path = tmp_path / "ccdt.json"
    path.write_text(json.dumps({"channel": [{
        "name": "TLS.ANY", "type": "clientConnection",
        "clientConnection": {"connection": [{"host": host, "port": int(port)}], "queueManager": "QM1"},
        "transmissionSecurity": {"cipherSpecification": "ANY_TLS12_OR_HIGHER"}}]}))
    monkeypatch.setenv("MQCCDTURL", str(path))
    monkeypatch.setenv("MQSSLKEYR", keys.client)
    cno = ibmmq.CNO(Options=CMQC.MQCNO_CLIENT_BINDING)
    manager = ibmmq.QueueManager(None)
    manager.connect_with_options("QM1", cno=cno)
    assert round_trip(manager) == b"over TLS"


def ccdt_connect(qm, tmp_path, repository: str, **transmission_security: str) -> ibmmq.QueueManager:
    """A connection through a JSON CCDT named by MQCNO.CCDTUrl whose one entry is `channel`
    with these transmissionSecurity fields (IBM's JSON names)."""
    host, port = qm.conn_name.rstrip(")").split("(")
    channel = transmission_security.pop("channel")
    path = tmp_path / "ccdt.json"
    path.write_text(json.dumps({"channel": [{
        "name": channel, "type": "clientConnection",
        "clientConnection": {"connection": [{"host": host, "port": int(port)}], "queueManager": "QM1"},
        "transmissionSecurity": transmission_security}]}))
    cno = ibmmq.CNO(Version=CMQC.MQCNO_VERSION_6, Options=CMQC.MQCNO_CLIENT_BINDING)
    cno.CCDTUrl = f"file://{path}".encode()
    manager = ibmmq.QueueManager(None)
    manager.connect_with_options("QM1", cno=cno, sco=ibmmq.SCO(KeyRepository=repository.encode()))
    return manager


def test_a_ccdt_channels_certificate_label_and_peer_name_apply_as_an_mqcds(tls_qm, keys, tmp_path):
    # TLS.PEER wants a client certificate matching CN=app, O=Spark: the entry's label sends it,
    # and its peer name is checked against the queue manager's certificate
    manager = ccdt_connect(tls_qm, tmp_path, keys.client, channel="TLS.PEER",
                           cipherSpecification="ANY_TLS12_OR_HIGHER", certificateLabel="app",
                           certificatePeerName="CN=QM1.server, O=Spark")
    assert round_trip(manager) == b"over TLS"
    with pytest.raises(ibmmq.MQMIError) as exc:   # without the label no certificate is sent
        ccdt_connect(tls_qm, tmp_path, keys.client, channel="TLS.PEER",
                     cipherSpecification="ANY_TLS12_OR_HIGHER").disconnect()
    assert exc.value.reason == CMQC.MQRC_SSL_INITIALIZATION_ERROR


@pytest.mark.parametrize("peer_name, expected", [
    ("CN=QM2.*", CMQC.MQRC_SSL_PEER_NAME_MISMATCH),
    ("XX=QM1", CMQC.MQRC_SSL_PEER_NAME_ERROR),
])
def test_a_ccdt_certificate_peer_name_is_checked_as_sslpeername(tls_qm, keys, tmp_path, peer_name, expected):
    with pytest.raises(ibmmq.MQMIError) as exc:
        ccdt_connect(tls_qm, tmp_path, keys.client, channel="TLS.ANY",
                     cipherSpecification="ANY_TLS12", certificatePeerName=peer_name).disconnect()
    assert exc.value.reason == expected


# --- SSLCIPH must name a CipherSpec IBM MQ knows ------------------------------------------------
@pytest.mark.parametrize("command", [
    "DEFINE CHANNEL(TLS.NEW) CHLTYPE(SVRCONN) SSLCIPH(NOT_A_CIPHERSPEC)",
    "DEFINE CHANNEL(TLS.NEW) CHLTYPE(SVRCONN) SSLCIPH('TLS_RSA_WITH_AES_128_GCM')",
    "ALTER CHANNEL(TLS.ANY) CHLTYPE(SVRCONN) SSLCIPH(RC4_NOT_A_SPEC)",
])
def test_mqsc_refuses_an_sslciph_that_is_not_a_cipherspec(tls_qm, command):
    with pytest.raises(embedded.EmbeddedQueueManagerError) as exc:
        tls_qm.run_mqsc(command)
    assert "AMQ8242E: SSLCIPH definition wrong." in str(exc.value)
    assert "SSLCIPH(ANY_TLS12_OR_HIGHER)" in tls_qm.run_mqsc("DISPLAY CHANNEL(TLS.ANY) SSLCIPH")
    with pytest.raises(embedded.EmbeddedQueueManagerError):
        tls_qm.run_mqsc("DISPLAY CHANNEL(TLS.NEW)")


@pytest.mark.parametrize("value", ["ANY_TLS13", "ECDHE_ECDSA_AES_256_GCM_SHA384", "NULL_SHA", " "])
def test_mqsc_accepts_every_cipherspec_ibm_mq_knows_and_blank(tls_qm, value):
    defined = tls_qm.run_mqsc(f"DEFINE CHANNEL(TLS.KNOWN) CHLTYPE(SVRCONN) SSLCIPH('{value}') REPLACE")
    assert "AMQ8014I" in defined
    tls_qm.run_mqsc("DELETE CHANNEL(TLS.KNOWN)")


def test_pcf_create_and_change_channel_refuse_an_sslcipherspec_that_is_not_one(tls_qm):
    conn = ibmmq.connect(tls_qm.name, "DEV.APP.SVRCONN", tls_qm.conn_name)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    try:
        for command, name in ((pcf.MQCMD_CREATE_CHANNEL, b"TLS.PCF"), (pcf.MQCMD_CHANGE_CHANNEL, b"TLS.ANY")):
            with pytest.raises(ibmmq.MQMIError) as exc:
                command({CMQCFC.MQCACH_CHANNEL_NAME: name, CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                         CMQCFC.MQCACH_SSL_CIPHER_SPEC: b"NOT_A_CIPHERSPEC"})
            assert exc.value.reason == CMQCFC.MQRCCF_SSL_CIPHER_SPEC_ERROR
        pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TLS.PCF",
                                  CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                                  CMQCFC.MQCACH_SSL_CIPHER_SPEC: b"ANY_TLS13_OR_HIGHER"})
        found = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TLS.PCF"})
        assert found[0][CMQCFC.MQCACH_SSL_CIPHER_SPEC].strip() == b"ANY_TLS13_OR_HIGHER"
        pcf.MQCMD_DELETE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"TLS.PCF"})
    finally:
        pcf.disconnect()
        conn.disconnect()


def test_pcf_sets_what_ibms_tls_test_sets(tls_qm, keys):
    """IBM's test_tls.py: the queue manager's SSLKEYR and CERTLABL, a channel's SSLPEER,
    SSLCAUTH and CERTLABL, and USERMAP and BLOCKUSER rules, all by PCF."""
    conn = ibmmq.connect(tls_qm.name, "DEV.APP.SVRCONN", tls_qm.conn_name)
    pcf = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    profile = {CMQCFC.MQCACH_CHANNEL_NAME: b"TLS.PCF.PEER"}
    try:
        assert conn.inquire(CMQC.MQCA_SSL_KEY_REPOSITORY).strip() == keys.qm.encode()
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_SSL_KEY_REPOSITORY: b"/elsewhere/key",
                                CMQC.MQCA_CERT_LABEL: b"other"})
        assert conn.inquire(CMQC.MQCA_CERT_LABEL).strip() == b"other"
        assert "SSLKEYR(/elsewhere/key)" in tls_qm.run_mqsc("DISPLAY QMGR SSLKEYR")
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_SSL_KEY_REPOSITORY: keys.qm.encode(), CMQC.MQCA_CERT_LABEL: b""})

        pcf.MQCMD_CREATE_CHANNEL({**profile, CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                                  CMQCFC.MQCACH_SSL_CIPHER_SPEC: b"ANY_TLS12_OR_HIGHER",
                                  CMQCFC.MQCACH_SSL_PEER_NAME: b"CN=app",
                                  CMQCFC.MQIACH_SSL_CLIENT_AUTH: CMQXC.MQSCA_OPTIONAL,
                                  CMQC.MQCA_CERT_LABEL: b"other"})
        found = pcf.MQCMD_INQUIRE_CHANNEL(profile)[0]
        assert found[CMQCFC.MQCACH_SSL_PEER_NAME].strip() == b"CN=app"
        assert found[CMQCFC.MQIACH_SSL_CLIENT_AUTH] == CMQXC.MQSCA_OPTIONAL
        assert found[CMQC.MQCA_CERT_LABEL].strip() == b"other"

        usermap = {**profile, CMQCFC.MQIACF_CHLAUTH_TYPE: CMQCFC.MQCAUT_USERMAP,
                   CMQCFC.MQCACH_CLIENT_USER_ID: b"admin", CMQCFC.MQIACH_USER_SOURCE: CMQC.MQUSRC_MAP,
                   CMQC.MQIA_CHECK_CLIENT_BINDING: CMQCFC.MQCHK_REQUIRED_ADMIN,
                   CMQCFC.MQCACH_MCA_USER_ID: b"mqm"}
        pcf.MQCMD_SET_CHLAUTH_REC({**usermap, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REPLACE})
        # a list of one user may come as an MQCFST, as IBM's test sends it
        pcf.MQCMD_SET_CHLAUTH_REC([
            ibmmq.CFST(Parameter=CMQCFC.MQCACH_CHANNEL_NAME, String=b"TLS.PCF.PEER"),
            ibmmq.CFIN(Parameter=CMQCFC.MQIACF_CHLAUTH_TYPE, Value=CMQCFC.MQCAUT_BLOCKUSER),
            ibmmq.CFST(Parameter=CMQCFC.MQCACH_MCA_USER_ID_LIST, String=b"nobody"),
            ibmmq.CFIN(Parameter=CMQCFC.MQIACF_ACTION, Value=CMQCFC.MQACT_REPLACE)])
        shown = tls_qm.run_mqsc("DISPLAY CHLAUTH('TLS.PCF.PEER') ALL")
        assert "CLNTUSER(admin)" in shown and "MCAUSER(mqm)" in shown and "CHCKCLNT(REQDADM)" in shown
        assert "USERLIST(nobody)" in shown
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_SET_CHLAUTH_REC({**usermap, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_ADD})
        assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_ALREADY_EXISTS
        for rule_type in (CMQCFC.MQCAUT_USERMAP, CMQCFC.MQCAUT_BLOCKUSER):
            pcf.MQCMD_SET_CHLAUTH_REC({**profile, CMQCFC.MQIACF_CHLAUTH_TYPE: rule_type,
                                       CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVEALL})
        assert "CHLAUTH(TLS.PCF.PEER)" not in tls_qm.run_mqsc("DISPLAY CHLAUTH('*')")
        with pytest.raises(ibmmq.MQMIError) as exc:
            pcf.MQCMD_SET_CHLAUTH_REC({**usermap, CMQCFC.MQIACF_ACTION: CMQCFC.MQACT_REMOVE})
        assert exc.value.reason == CMQCFC.MQRCCF_CHLAUTH_NOT_FOUND
        pcf.MQCMD_DELETE_CHANNEL(profile)
    finally:
        pcf.disconnect()
        conn.disconnect()


# --- the pieces, without a queue manager ----------------------------------------------------
def test_channel_names_travel_in_the_server_name_and_back():
    for channel in ("DEV.APP.SVRCONN", "lower_case/%", "A.", "TLS.V12"):
        server_name = channel_names.to_server_name(channel)
        assert server_name.endswith(".chl.mq.ibm.com") and len(server_name.split(".")[0]) <= 63
        assert channel_names.from_server_name(server_name) == channel
    assert channel_names.from_server_name("example.com") is None


def test_cipherspec_aliases_and_suites():
    assert cipher_specs.lookup("any_tls12_or_higher").allows("TLSv1.3", "TLS_AES_128_GCM_SHA256")
    assert not cipher_specs.lookup("ANY_TLS12").allows("TLSv1.3", "TLS_AES_256_GCM_SHA384")
    rsa128 = cipher_specs.lookup("ECDHE_RSA_AES_128_GCM_SHA256")
    assert rsa128 is not None and rsa128.allows("TLSv1.2", "ECDHE-RSA-AES128-GCM-SHA256")
    assert not rsa128.allows("TLSv1.2", "ECDHE-RSA-AES256-GCM-SHA384")
    assert cipher_specs.lookup("TLS_RSA_WITH_AES_128_CBC_SHA") is None   # deprecated by IBM: not offered
    assert cipher_specs.is_known("TLS_RSA_WITH_AES_128_CBC_SHA") and cipher_specs.is_known("ANY")
    assert not cipher_specs.is_known("NOT_A_CIPHERSPEC")
    assert cipher_specs.ibm_name("ECDHE-RSA-AES256-GCM-SHA384") == "ECDHE_RSA_AES_256_GCM_SHA384"


def test_peer_name_patterns_follow_ibms_rules():
    dn = [("CN", "QMGR.one"), ("OU", "IBM"), ("OU", "WebSphere"), ("O", "Example")]
    assert distinguished_names.matches("CN=QMGR.*, OU=IBM, OU=WEBSPHERE", dn)
    assert distinguished_names.matches('CN="qmgr.one"', dn)
    assert not distinguished_names.matches("OU=WEBSPHERE", dn)     # repeated types match in order
    assert not distinguished_names.matches("CN=QMGR.*, OU=IBM, OU=WEBSPHERE, OU=X", dn)
    with pytest.raises(distinguished_names.PeerNameError):
        distinguished_names.parse("ou=IBM")


def test_a_waiting_get_over_tls_is_woken_by_a_plain_put(tls_qm, keys):
    import threading
    secure = connect(tls_qm, "TLS.ANY", "ANY_TLS12_OR_HIGHER", keys.client)
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=200)
    with pytest.raises(ibmmq.MQMIError) as exc:
        ibmmq.Queue(secure, "TLS.Q").get(None, ibmmq.MD(), gmo)
    assert exc.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE

    def put_later() -> None:
        plain = ibmmq.connect(tls_qm.name, "DEV.APP.SVRCONN", tls_qm.conn_name)
        ibmmq.Queue(plain, "TLS.Q").put(b"woken")
        plain.disconnect()
    timer = threading.Timer(0.3, put_later)
    timer.start()
    gmo = ibmmq.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=10_000)
    assert ibmmq.Queue(secure, "TLS.Q").get(None, ibmmq.MD(), gmo) == b"woken"
    timer.join()
    secure.disconnect()
