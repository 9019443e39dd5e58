"""Every option of the "mq" data source, parsed once from Spark's (case-insensitive) options
and validated: an error names the option, the bad value and what would be valid.

Each option is declared once, in the table of spark_mq/options/spec.py (name, side, default,
the default as the docs show it, meaning, parser); the names lists, the unknown-name check
(with its "did you mean"), the list below and the test of the docs' option tables
(tests/test_option_docs.py) all come from it. values.py holds the parsers, one per kind of
value: `ccsid` and `encoding` go through the same two on both sides (the reader's also need
`convert=true`). The rules between options are named checks in read_options.py and write_options.py.

The default code page of text, CCSID 1208 (UTF-8) with the native Encoding 546, is
DEFAULT_CCSID / DEFAULT_ENCODING in spec.py: the reader converts to it, and the writer's
message plan (spark_mq/mq/outgoing.py) encodes a string payload in it when neither the
option nor a `ccsid` column names another.

"""
from __future__ import annotations

from spark_mq.options.connection_options import parse_connection
from spark_mq.options.read_options import ReadOptions, requested_read_mode, subscription_name
from spark_mq.options.spec import (
    CONNECTION_OPTIONS,
    DEFAULT_CCSID,
    DEFAULT_ENCODING,
    OPTIONS,
    READ_OPTIONS,
    SPARK_OPTIONS,
    WRITE_OPTIONS,
    Option,
    check_known,
    describe,
    lower_keys,
    path_as_queue,
)
from spark_mq.options.write_options import WriteOptions

__all__ = ["CONNECTION_OPTIONS", "DEFAULT_CCSID", "DEFAULT_ENCODING", "OPTIONS", "READ_OPTIONS",
           "SPARK_OPTIONS", "WRITE_OPTIONS", "Option", "ReadOptions", "WriteOptions",
           "check_known", "lower_keys", "parse_connection", "path_as_queue",
           "requested_read_mode", "subscription_name"]

__doc__ = (__doc__ or "") + describe()
