"""The credentialsProvider option through Spark, on an embedded queue manager with users: the
named callable gives the MQCSP's user and password at each connect, in the driver's planning
and in the executors' tasks (the provider notes the processes that call it), and what it
returns stays out of errors and the plan.

The provider module is a file shipped with SparkContext.addPyFile (what --py-files does),
which puts it on the path of the driver and of every Python worker."""
from __future__ import annotations

import uuid

import pytest

import spark_mq.embedded as embedded
from spark_mq.mq.exceptions import MQOptionError
from spark_mq.options import parse_connection
from support import mq_options

PASSWORD = "passw0rd-from-a-vault"
PROVIDER = '''
import os

CALLS = {calls!r}


def _note():
    with open(CALLS, "a") as calls:
        calls.write(f"{{os.getpid()}}\\n")


def as_tuple():
    _note()
    return ("app", {password!r})


def as_mapping():
    _note()
    return {{"user": "app", "password": {password!r}}}


def wrong():
    return ("app", "not-the-password")


def failing():
    raise RuntimeError("vault said: the password is {password}")


def shapeless():
    return "app:{password}"
'''


@pytest.fixture(scope="module")
def sqm(tmp_path_factory):
    with embedded.EmbeddedQueueManager(str(tmp_path_factory.mktemp("qm-creds")), name="QMCRED",
                                       users={"app": PASSWORD}) as manager:
        yield manager


@pytest.fixture(scope="module")
def provider(spark, tmp_path_factory):
    """(the provider module's name, the file each call writes its process id to)."""
    folder = tmp_path_factory.mktemp("provider")
    name = f"creds_provider_{uuid.uuid4().hex[:12]}"   # addPyFile takes a name once per session
    calls = folder / "calls.txt"
    (folder / f"{name}.py").write_text(PROVIDER.format(calls=str(calls), password=PASSWORD))
    spark.sparkContext.addPyFile(str(folder / f"{name}.py"))
    return name, calls


def callers(calls) -> set[int]:
    return {int(line) for line in calls.read_text().split()} if calls.exists() else set()


def test_a_provider_gives_the_credentials_on_the_driver_and_the_executors(spark, sqm, provider):
    name, calls = provider
    rows = [(f"m{i}",) for i in range(6)]
    (spark.createDataFrame(rows, "payload string").coalesce(1).write.format("mq")
     .options(**mq_options(sqm, queue="DEV.QUEUE.1", delivery="atLeastOnce",
                           credentialsProvider=f"{name}:as_tuple"))
     .mode("append").save())
    read = (spark.read.format("mq")
            .options(**mq_options(sqm, queue="DEV.QUEUE.1", credentialsProvider=f"{name}.as_mapping"))
            .load())
    assert sorted(row.text for row in read.select("text").collect()) == [p for p, in rows]
    assert PASSWORD not in read._jdf.queryExecution().toString()
    # Python data sources plan in a Python worker of the driver and run tasks in the
    # executors' workers: each process that connects calls the provider itself
    assert len(callers(calls)) >= 2, callers(calls)


def test_a_wrong_password_from_a_provider_is_refused_naming_the_provider(spark, sqm, provider):
    name, _ = provider
    options = mq_options(sqm, queue="DEV.QUEUE.1", credentialsProvider=f"{name}:wrong")
    with pytest.raises(Exception) as failure:
        spark.read.format("mq").options(**options).load().collect()
    text = str(failure.value)
    assert "MQ reason 2035 MQRC_NOT_AUTHORIZED" in text, text
    assert f"a wrong user or password from credentialsProvider '{name}:wrong'" in text, text


@pytest.mark.parametrize("function, says", [
    ("failing", "calling it raised RuntimeError"),
    ("shapeless", "it returned a str"),
    ("absent", "has no callable 'absent'"),
])
def test_a_provider_that_fails_is_named_but_its_secret_never_is(spark, sqm, provider, function,
                                                               says):
    name, _ = provider
    options = mq_options(sqm, queue="DEV.QUEUE.1", credentialsProvider=f"{name}:{function}")
    with pytest.raises(Exception) as failure:
        spark.read.format("mq").options(**options).load().collect()
    text = str(failure.value)
    assert f"option 'credentialsProvider': invalid value '{name}:{function}'" in text, text
    assert says in text, text
    assert PASSWORD not in text, text


def test_a_provider_that_cannot_be_imported_is_named_with_its_module(spark, sqm):
    options = mq_options(sqm, queue="DEV.QUEUE.1", credentialsProvider="no_such_vault_module:get")
    with pytest.raises(Exception) as failure:
        spark.read.format("mq").options(**options).load().collect()
    text = str(failure.value)
    assert "option 'credentialsProvider': invalid value 'no_such_vault_module:get'" in text, text
    assert "module 'no_such_vault_module' could not be imported here" in text, text


@pytest.mark.parametrize("given", [{"user": "app"}, {"password": PASSWORD},
                                   {"user": "app", "password": PASSWORD}])
def test_a_provider_and_a_user_or_password_are_refused_together(given):
    options = {"connName": "localhost(1414)", "credentialsProvider": "vault:get", **given}
    with pytest.raises(MQOptionError) as failure:
        parse_connection({key.lower(): value for key, value in options.items()})
    text = str(failure.value)
    assert "option 'credentialsProvider'" in text and "not both" in text, text
    assert all(f"'{name}'" in text for name in given), text
    assert PASSWORD not in text, text


@pytest.mark.parametrize("value", ["", "vault", "vault:", ":get", "vault:not a name"])
def test_a_provider_name_without_a_module_and_a_function_is_refused(value):
    with pytest.raises(MQOptionError, match="option 'credentialsProvider'"):
        parse_connection({"connname": "localhost(1414)", "credentialsprovider": value})
