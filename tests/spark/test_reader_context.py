"""includeContext: the default schema gains the context columns and `property_types`, the MQ
type each property was set with (what a faithful copy needs to put it back as it was)."""
from __future__ import annotations

from ibmmq import CMQC

from support import put_messages, reader_options

TYPED = {"s": ("text", CMQC.MQTYPE_STRING, CMQC.MQVL_NULL_TERMINATED),
         "b": (1, CMQC.MQTYPE_BOOLEAN, 4), "raw": (b"\x00\xff", CMQC.MQTYPE_BYTE_STRING, 2),
         "i8": (-5, CMQC.MQTYPE_INT8, 1), "i16": (300, CMQC.MQTYPE_INT16, 2),
         "i32": (70000, CMQC.MQTYPE_INT32, 4), "i64": (2**40, CMQC.MQTYPE_INT64, 8),
         "f32": (1.5, CMQC.MQTYPE_FLOAT32, 4), "f64": (0.1, CMQC.MQTYPE_FLOAT64, 8),
         "nothing": (None, CMQC.MQTYPE_NULL, 0)}
EXPECTED_TYPES = {"s": "string", "b": "boolean", "raw": "bytes", "i8": "int8", "i16": "int16",
                  "i32": "int32", "i64": "int64", "f32": "float32", "f64": "float64",
                  "nothing": "null"}


def test_include_context_adds_the_copy_columns_with_each_propertys_type(spark, qm, conn, make_queue):
    queue = make_queue()
    put_messages(conn, queue, [b"one"], properties=[TYPED])
    df = spark.read.format("mq").options(**reader_options(qm, queue, includeContext="true")).load()
    names = df.columns
    for column in ("accounting_token", "appl_origin_data", "put_appl_type", "property_types"):
        assert column in names
    row = df.collect()[0]
    assert row.property_types == EXPECTED_TYPES
    assert row.properties["b"] == "true" and row.properties["raw"] == "00ff"
    assert row.properties["i64"] == str(2**40) and row.properties["f64"] == "0.1"
    assert row.properties["nothing"] is None and row.put_appl_type == CMQC.MQAT_UNIX


def test_without_include_context_the_default_schema_is_unchanged(spark, qm, make_queue):
    df = spark.read.format("mq").options(**reader_options(qm, make_queue())).load()
    assert "property_types" not in df.columns and df.columns[-1] == "text"
