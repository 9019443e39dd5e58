"""The connector's exceptions, for users to catch (defined in spark_mq.mq.errors), and how they
leave the methods Spark calls.

Spark shows an exception raised in its Python workers as the worker's formatted traceback,
behind its own prefix on the same first line (`[STREAM_FAILED] Query ... terminated with
exception: [PYTHON_STREAMING_DATA_SOURCE_RUNTIME_ERROR] Failed when Python streaming data
source perform latestOffset: ...`). `reports_to_spark` makes that first line the connector's
own: an error of ours leaving a method Spark calls names the queue manager it concerns and
leaves with itself, as one line, at the root of its chain (spark_mq.mq.errors.summary_first).

Spark's planner workers (the data source's constructor, `schema()`, `reader()`, `writer()`)
format with a "simplified traceback" that drops the chain, so there the line comes after
Spark's `Traceback (most recent call last):`; to keep that short, the error leaves without
the frames of the connector's own code (its message says what and where; the MQMIError in
its chain keeps the frames of the MQ call where Spark shows chains).
"""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from spark_mq.mq.errors import (
    MQConnectorError,
    MQOptionError,
    MQSchemaError,
    UnknownOptionError,
    summary_first,
)

__all__ = ["MQConnectorError", "MQOptionError", "MQSchemaError", "UnknownOptionError",
           "reports_to_spark"]

C = TypeVar("C", bound=type)


def reports_to_spark(*methods: str) -> Callable[[C], C]:
    """Class decorator for the methods Spark calls (see the module docstring). The object may
    have an `error_connection` attribute: the ConnectionOptions to name (or None)."""
    def decorate(cls: C) -> C:
        for name in methods:
            setattr(cls, name, _reporting(getattr(cls, name)))
        return cls
    return decorate


def _reporting(method: Callable[..., Any]) -> Callable[..., Any]:
    if inspect.isgeneratorfunction(method):
        @functools.wraps(method)
        def generating(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                yield from method(self, *args, **kwargs)
            except (MQConnectorError, MQOptionError) as exc:
                _on_the_way_out(self, exc)
                raise exc.with_traceback(None) from exc.__cause__  # its message says what failed
        return generating

    @functools.wraps(method)
    def calling(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (MQConnectorError, MQOptionError) as exc:
            _on_the_way_out(self, exc)
            raise exc.with_traceback(None) from exc.__cause__  # its message says what failed
    return calling


def _on_the_way_out(obj: Any, exc: BaseException) -> None:
    if isinstance(exc, MQConnectorError):
        try:
            connection = getattr(obj, "error_connection", None)
        except Exception:  # noqa: BLE001 - naming the queue manager is a courtesy
            connection = None
        if connection is not None:
            exc.at(connection.queue_manager, connection.conn_name or connection.ccdt_url)
    summary_first(exc)
