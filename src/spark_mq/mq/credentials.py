"""The credentials a connection sends in its MQCSP: the `user`/`password` options, or what
the callable named by `credentialsProvider` returns.

A provider is named "package.module:function" (or "package.module.function") and returns
(user, password), a mapping {"user": ..., "password": ...}, or a mapping {"token": ...}: an
authentication token (a JWT, sent as MQCSP_AUTH_ID_TOKEN, IBM MQ 9.3.4 and later), which
takes the place of the user and password, so a mapping with both is refused. It is resolved and called at
every connect, on the driver and on each executor, so a secret that rotates (a vault lease,
a file a sidecar rewrites) is read when it is needed and never travels in Spark's plan, its
options or its progress: the option holds only the callable's name. Its module must be
importable where the connection is made (on the executors too: spark.executorEnv.PYTHONPATH,
--py-files, or an installed package).

What comes back is never logged nor put in an error: an error about a provider names the
option and the callable's name and says what is wrong with the result's shape (a type, a
missing key), never its values; `Credentials.__repr__` hides the password and the token.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spark_mq.mq.exceptions import MQOptionError

OPTION = "credentialsProvider"
_SHAPE = ("a callable named 'module:function' (or 'module.function') that returns "
          "(user, password), a mapping {'user': ..., 'password': ...} or a mapping "
          "{'token': ...}")


@dataclass(frozen=True)
class Credentials:
    """What goes in the MQCSP. The password and the token never show in a repr (a log line,
    a traceback)."""
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    #: an authentication token (MQCSP_AUTH_ID_TOKEN), sent instead of user and password
    token: str | None = field(default=None, repr=False)


def resolve(provider: str) -> Credentials:
    """The credentials the named provider returns now (called at every connect)."""
    supplier = load(provider)
    try:
        result = supplier()
    except Exception as exc:   # noqa: BLE001 - a provider's own failure, named without its text
        # the provider's message could quote a secret: only its type goes in the error
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; calling it raised "
                                              f"{type(exc).__name__}") from None
    return _checked(provider, result)


def load(provider: str) -> Callable[[], Any]:
    """The callable a provider's name names; an MQOptionError naming it when it is not one."""
    module_name, attribute = split_name(provider)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; module {module_name!r} could not be "
                                              f"imported here ({type(exc).__name__}: {exc})"
                            ) from None
    except Exception as exc:   # noqa: BLE001 - the module failed as it loaded: its text could quote a secret
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; importing module {module_name!r} "
                                              f"raised {type(exc).__name__}") from None
    supplier: Callable[[], Any] | None = getattr(module, attribute, None)
    if supplier is None or not callable(supplier):
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; module {module_name!r} has no "
                                              f"callable {attribute!r}")
    return supplier


def split_name(provider: str) -> tuple[str, str]:
    """(module, attribute) of "module:function" or "module.function"."""
    text = provider.strip()
    module_name, colon, attribute = text.partition(":")
    if not colon:
        module_name, _, attribute = text.rpartition(".")
    if not module_name or not attribute.isidentifier():
        raise MQOptionError(OPTION, provider, _SHAPE)
    return module_name, attribute


def _checked(provider: str, result: Any) -> Credentials:
    """The provider's result as Credentials; its shape checked, its values never quoted."""
    if isinstance(result, Mapping):
        unknown = sorted(str(key) for key in result if key not in ("user", "password", "token"))
        if unknown:
            raise MQOptionError(OPTION, provider, f"{_SHAPE}; it returned a mapping with "
                                                  f"keys it does not take: {unknown}")
        if "token" in result:
            return _token_only(provider, result)
        user, password = result.get("user"), result.get("password")
    elif isinstance(result, tuple) and len(result) == 2:
        user, password = result
    else:
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; it returned a "
                                              f"{type(result).__name__}")
    for name, value in (("user", user), ("password", password)):
        if value is not None and not isinstance(value, str):
            raise MQOptionError(OPTION, provider, f"{_SHAPE}; its {name} is a "
                                                  f"{type(value).__name__}, not a string")
    if not user:
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; it returned no user")
    return Credentials(user, password)


def _token_only(provider: str, result: Mapping[str, Any]) -> Credentials:
    """A provider's {"token": ...}: a non-empty string, and nothing else beside it."""
    if "user" in result or "password" in result:
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; it returned a token together with "
                                              "a user or password: the token takes their place")
    token = result["token"]
    if not isinstance(token, str):
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; its token is a "
                                              f"{type(token).__name__}, not a string")
    if not token.strip():
        raise MQOptionError(OPTION, provider, f"{_SHAPE}; its token is empty")
    return Credentials(token=token.strip())
