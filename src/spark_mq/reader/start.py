"""How a stream reader starts: made without checking anything, checked at Spark's first call.

pyspark's streaming-source runner makes the reader inside a `try` whose `finally` calls
`reader.stop()`: if making the reader raises, that cleanup fails with "UnboundLocalError:
cannot access local variable 'reader'", which hides the real error at the end of a long
trace. So a stream reader is made from the data source's options as given, and the checks
run at the first call Spark makes, where an error reaches the user as it was raised:

* `options` and `specs` (the options parsed, the schema planned): pure, on any process;
* `start()` (the driver's calls only): the checks against the queue manager: a topic read's
  durable subscription made or resumed (its managed queue becomes the queue read), the queue
  opened for input with the selector; done once a minute per process (start_checks).

Where the data source's `schema()` runs (load() without a user schema), the options were
checked there already; with a user schema Spark calls no Python at load() at all.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from pyspark.sql.types import StructType

from spark_mq.columns import ColumnSpec
from spark_mq.mq.connecting import ConnectionOptions
from spark_mq.mq.exceptions import MQConnectorError
from spark_mq.options import ReadOptions, parse_connection
from spark_mq.reader.rows import column_specs
from spark_mq.reader.runner_watch import end_with_parent


def read_options(options: Mapping[str, str], schema: StructType) -> ReadOptions:
    """The reader's options for this schema: property types are read (a second MQINQMP per
    4-byte integer property) only when a column shows them."""
    return replace(ReadOptions.parse(options),
                   typed_properties="property_types" in schema.fieldNames())


def start_checks(options: ReadOptions, browse: bool = False) -> ReadOptions:
    """Checked against the queue manager, once a minute per process: a topic read first makes
    (or resumes) its durable subscription and then reads its managed queue; the queue is
    opened for input with the selector, so an unknown queue or a selector the queue manager
    refuses fails here, with MQ's own reason. `browse`: the read only browses (a batch read),
    and the check opens the queue as the browse does."""
    from spark_mq.mq.queues import check_input_queue
    from spark_mq.start_checks import checked_once
    if options.queue_managers:
        for member in options.members():    # queueManagers: the queue on each of them
            try:
                start_checks(member, browse)
            except MQConnectorError as exc:
                naming(exc, member.connection)
                raise
        return options
    if options.reads_topic:
        from spark_mq.mq.subscriptions import ensure_durable_subscription
        managed = checked_once(("subscribe", options), lambda: ensure_durable_subscription(
            options.connection, options.subscription or "", options.topic, options.topic_object))
        options = replace(options, queue=managed)
    checked_once(("browse" if browse else "read", options), lambda: check_input_queue(
        options.connection, options.queue, options.selector, browse))
    return options


def naming(exc: MQConnectorError, connection: ConnectionOptions) -> MQConnectorError:
    """`exc` naming the queue manager it happened on (with queueManagers, the reader's own
    error_connection names none: it reads several)."""
    return exc.at(connection.queue_manager, connection.conn_name or connection.ccdt_url)


class StartsOnFirstCall:
    """The stream readers' common start (see the module docstring)."""

    def __init__(self, options: ReadOptions | Mapping[str, str], schema: StructType) -> None:
        # nothing here may raise: see the module docstring
        self.schema = schema
        self._given: Mapping[str, str] | None = None
        self._options: ReadOptions | None = None
        if isinstance(options, ReadOptions):
            self._options = options
        else:
            self._given = dict(options)
        self._specs: list[ColumnSpec] | None = None
        self._started = False

    @property
    def options(self) -> ReadOptions:
        if self._options is None:
            assert self._given is not None
            self._options = read_options(self._given, self.schema)
        return self._options

    @property
    def specs(self) -> list[ColumnSpec]:
        if self._specs is None:
            self._specs = column_specs(self.schema)
        return self._specs

    def start(self) -> None:
        """The checks against the queue manager, before the first call that uses it."""
        if not self._started:
            end_with_parent()   # before the first connection: spark_mq/reader/runner_watch.py
            self.specs  # noqa: B018 - a schema the reader cannot fill fails before any get
            self._options = start_checks(self.options)
            self._started = True

    @property
    def error_connection(self) -> ConnectionOptions | None:
        """The queue manager an error names (spark_mq.errors.reports_to_spark)."""
        if self._options is not None:
            return self._options.connection
        try:
            return parse_connection(self._given or {})
        except Exception:  # noqa: BLE001 - bad connection options name no queue manager
            return None
