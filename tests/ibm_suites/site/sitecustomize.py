"""Start-up hook of the Python processes that tests/ibm_suites/run.py starts.

Python imports `sitecustomize` at start-up when it is on the path; run.py puts this folder on
PYTHONPATH, so IBM's unmodified tests, examples and samples get the embedded transport
without a line of theirs changed. Nothing else imports this module.
"""
from __future__ import annotations

import dataclasses
import os

import spark_mq.embedded as embedded

# The harness's queue manager listens here (it picks a free port, so it never clashes with a
# real MQ on this machine).
PORT_VARIABLE = "SPARK_MQ_IBM_SUITES_PORT"
# IBM's examples hard-code this address: the MQ developer container's listener.
_HARD_CODED = {("localhost", 1414), ("127.0.0.1", 1414)}
# The client key repository the harness made (run.py), and the one IBM's
# connect_client_tls.py hard-codes (MQSCO.KeyRepository): the MQ container's path.
KEY_REPOSITORY_VARIABLE = "SPARK_MQ_IBM_SUITES_KEY_REPOSITORY"
_HARD_CODED_KEY_REPOSITORY = "/var/mqm/ssl/key"

embedded.install()  # before IBM's code imports ibmmq, which binds its transport at import


def _redirect_hard_coded_address(port: int) -> None:
    """Send connections to localhost(1414) to the harness's queue manager instead."""
    from spark_mq.embedded.client import connection
    parse = getattr(connection, "_parse_conn_names", None)
    if parse is None:  # fail loudly: silently connecting nowhere would look like an MQ gap
        raise RuntimeError("spark_mq.embedded.client.connection._parse_conn_names is gone; "
                           "update tests/ibm_suites/site/sitecustomize.py")

    def parse_redirected(conn_names: str) -> list[tuple[str, int]]:
        return [("127.0.0.1", port) if target in _HARD_CODED else target for target in parse(conn_names)]

    connection._parse_conn_names = parse_redirected


def _redirect_hard_coded_key_repository(stem: str) -> None:
    """Read the key repository `stem` wherever a program names /var/mqm/ssl/key."""
    from spark_mq.embedded.client import tls
    from spark_mq.embedded.tls import key_repository
    read = getattr(tls, "from_structures", None)
    if read is None:  # fail loudly: a 2381 here would look like an MQ gap
        raise RuntimeError("spark_mq.embedded.client.tls.from_structures is gone; "
                           "update tests/ibm_suites/site/sitecustomize.py")

    def read_redirected(*args, **kwargs):
        options = read(*args, **kwargs)
        if key_repository.stem(options.repository) != _HARD_CODED_KEY_REPOSITORY:
            return options
        return dataclasses.replace(options, repository=stem)

    tls.from_structures = read_redirected


if os.environ.get(PORT_VARIABLE):
    _redirect_hard_coded_address(int(os.environ[PORT_VARIABLE]))
if os.environ.get(KEY_REPOSITORY_VARIABLE):
    _redirect_hard_coded_key_repository(os.environ[KEY_REPOSITORY_VARIABLE])
