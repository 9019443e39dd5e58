"""Test certificates for TLS, made with the `openssl` command (the project needs no crypto library).

`KeyRepositories(folder)` makes two CAs, a queue manager repository and a client repository
in the PEM layout of spark_mq/embedded/tls/key_repository.py:

    qm/key.crt, qm/key.key             the queue manager's certificate (CN=QM1.server), by the server CA
    qm/key.other.crt, .key             a second one, label "other" (CN=QM1.other)
    qm/key.ca.pem                      the client CA: client certificates it signs are trusted
    client/key.ca.pem                  the server CA: the queue manager is trusted
    client/key.app.crt, .key           label "app": CN=app,OU=Payments,O=Spark, by the client CA
    client/key.rogue.crt, .key         label "rogue": CN=rogue,O=Elsewhere, by the client CA
    client/key.stranger.crt, .key      label "stranger": CN=app,O=Spark by an untrusted CA
    untrusting/key.ca.pem              a repository that trusts only the untrusted CA

`one_way_repositories(folder)` makes only what TLS without client certificates
(SSLCAUTH(OPTIONAL)) needs: a queue manager certificate and a client that trusts its CA.

`exchanged_self_signed(...)` makes what the preparation notes of IBM's code/tests/test_tls.py
make with runmqakm: a self-signed certificate for each side, under a label, each side
trusting the other's certificate.
"""
from __future__ import annotations

import os
import shutil
import subprocess


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


def make_self_signed(base: str, subject: str) -> tuple[str, str]:
    """`base`.crt and `base`.key, a self-signed certificate (a CA of its own)."""
    crt, key = base + ".crt", base + ".key"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", crt,
             "-days", "2", "-subj", subject)
    return crt, key


def make_ca(folder: str, name: str) -> tuple[str, str]:
    return make_self_signed(os.path.join(folder, name), f"/CN={name}")


def make_certificate(base: str, subject: str, ca: tuple[str, str]) -> None:
    """`base`.crt and `base`.key, signed by `ca`; `subject` in openssl's /K=V/K=V form."""
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", base + ".key", "-out", base + ".csr",
             "-subj", subject)
    _openssl("x509", "-req", "-in", base + ".csr", "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial",
             "-out", base + ".crt", "-days", "2")
    os.unlink(base + ".csr")


class KeyRepositories:
    def __init__(self, folder: str):
        if shutil.which("openssl") is None:
            raise RuntimeError("the openssl command is needed to make test certificates")
        cas = os.path.join(folder, "ca")
        for sub in ("ca", "qm", "client", "untrusting"):
            os.makedirs(os.path.join(folder, sub), exist_ok=True)
        server_ca, client_ca = make_ca(cas, "ServerCA"), make_ca(cas, "ClientCA")
        untrusted_ca = make_ca(cas, "UntrustedCA")
        self.qm = os.path.join(folder, "qm", "key")
        self.client = os.path.join(folder, "client", "key")
        self.untrusting = os.path.join(folder, "untrusting", "key")
        make_certificate(self.qm, "/O=Spark/CN=QM1.server", server_ca)
        make_certificate(self.qm + ".other", "/O=Spark/CN=QM1.other", server_ca)
        shutil.copy(client_ca[0], self.qm + ".ca.pem")
        shutil.copy(server_ca[0], self.client + ".ca.pem")
        make_certificate(self.client + ".app", "/O=Spark/OU=Payments/CN=app", client_ca)
        make_certificate(self.client + ".rogue", "/O=Elsewhere/CN=rogue", client_ca)
        make_certificate(self.client + ".stranger", "/O=Spark/CN=app", untrusted_ca)
        shutil.copy(untrusted_ca[0], self.untrusting + ".ca.pem")


def one_way_repositories(folder: str, qm_subject: str = "/O=Spark/CN=QM1") -> tuple[str, str]:
    """`folder`/qm/key.crt+.key (the queue manager's certificate, by a CA of its own) and
    `folder`/client/key.ca.pem (that CA, and no client certificate); returns the two stems."""
    if shutil.which("openssl") is None:
        raise RuntimeError("the openssl command is needed to make test certificates")
    for sub in ("ca", "qm", "client"):
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
    ca = make_ca(os.path.join(folder, "ca"), "ServerCA")
    qm, client = os.path.join(folder, "qm", "key"), os.path.join(folder, "client", "key")
    make_certificate(qm, qm_subject, ca)
    shutil.copy(ca[0], client + ".ca.pem")
    return qm, client


def exchanged_self_signed(qm_stem: str, qm_label: str, client_stem: str, client_label: str) -> None:
    """IBM's test_tls.py preparation: `qm_stem`.`qm_label`.crt/.key, self-signed with
    CN=`qm_label`, and `client_stem`.`client_label`.crt/.key with CN=`client_label`; each
    stem's .ca.pem holds the other side's certificate (runmqakm's extract and add)."""
    if shutil.which("openssl") is None:
        raise RuntimeError("the openssl command is needed to make test certificates")
    for stem in (qm_stem, client_stem):
        os.makedirs(os.path.dirname(stem) or ".", exist_ok=True)
    qm_crt, _ = make_self_signed(f"{qm_stem}.{qm_label}", f"/CN={qm_label}")
    client_crt, _ = make_self_signed(f"{client_stem}.{client_label}", f"/CN={client_label}")
    shutil.copy(client_crt, qm_stem + ".ca.pem")
    shutil.copy(qm_crt, client_stem + ".ca.pem")
