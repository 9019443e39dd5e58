"""The connector's exceptions, for users to catch (defined in spark_mq.mq.exceptions), and how they
leave the methods Spark calls.

Spark shows an exception raised in its Python workers as the worker's formatted text, behind
its own prefix on the same first line (`[STREAM_FAILED] Query ... terminated with exception:
[PYTHON_STREAMING_DATA_SOURCE_RUNTIME_ERROR] Failed when Python streaming data source perform
latestOffset: ...`), and pyspark in the driver turns the frames in that text back into the
traceback the user's script ends with. A traceback there ends in whatever line raised last in
the worker: for our errors that was the connector's own re-raise, which read like a bug in
spark_mq, before a message that already says all there is (the MQ reason and its name, the
object, the queue manager, the fix).

So `reports_to_spark` makes an error of ours (an MQ failure, a bad option, a column or a row
the writer cannot write) leave a method Spark calls as its one line: it names the queue
manager, and in a pyspark worker it asks pyspark to format it without traceback (pyspark's
SPARK_HIDE_TRACEBACK, which spark.sql.execution.pyspark.udf.hideTraceback.enabled sets for a
whole session). Every pyspark worker reports the exception that ends its call and then exits
(`handle_worker_exception`, then `sys.exit(-1)`, in pyspark 4.x), so that setting lasts for
this one error in a process about to end, and the user's own UDFs keep their tracebacks. What
the user sees is Spark's prefix, then `spark_mq.mq.exceptions.MQConnectorError: <the line>`, and
the traceback of their script ends in their own call.

Outside a worker (the connector called directly), the error leaves as the root of its chain
(spark_mq.mq.exceptions.summary_first), without the frames of the connector's own code (its
message says what and where; the MQMIError in its chain keeps the frames of the MQ call).
"""
from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any, TypeVar

from spark_mq.mq.exceptions import (
    MQConnectorError,
    MQOptionError,
    MQSchemaError,
    UnknownOptionError,
    summary_first,
)
from spark_mq.mq.outgoing import ColumnError, RowValueError

__all__ = ["MQConnectorError", "MQOptionError", "MQSchemaError", "UnknownOptionError",
           "reports_to_spark"]

C = TypeVar("C", bound=type)
#: the errors whose message says all there is: they leave as that one line
_REPORTED = (MQConnectorError, MQOptionError, ColumnError, RowValueError)
#: set by Spark in the environment of the Python workers it starts (pyspark's worker_util)
_WORKER_MARK = "PYTHON_WORKER_FACTORY_SECRET"


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
            except _REPORTED as exc:
                _on_the_way_out(self, exc)
                raise exc.with_traceback(None) from exc.__cause__  # the message is the report
        return generating

    @functools.wraps(method)
    def calling(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except _REPORTED as exc:
            _on_the_way_out(self, exc)
            raise exc.with_traceback(None) from exc.__cause__  # the message is the report
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
    if _WORKER_MARK in os.environ:
        os.environ["SPARK_HIDE_TRACEBACK"] = "1"   # this worker reports this error, then exits
