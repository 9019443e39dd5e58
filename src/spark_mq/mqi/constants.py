"""MQI constants for the embedded queue manager, taken from the installed ibmmq package.

The constants file ships inside `ibmmq` as plain Python; it is loaded by path so that the
embedded server never imports `ibmmq` itself (which would load, or need, an `ibmmqc`).
"""
from __future__ import annotations

import importlib.util
import os
import types


def _load_cmqc() -> types.ModuleType:
    spec = importlib.util.find_spec("ibmmq")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the ibmmq package is required (pip install ibmmq)")
    path = os.path.join(list(spec.submodule_search_locations)[0], "_CMQC_linux_x64.py")
    module_spec = importlib.util.spec_from_file_location("_spark_mq_cmqc", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


CMQC = _load_cmqc()

#: reason code number -> "MQRC_..." name
REASON_NAMES: dict[int, str] = {}
for _name, _value in vars(CMQC).items():
    if _name.startswith("MQRC_") and isinstance(_value, int):
        REASON_NAMES.setdefault(_value, _name)


def reason_name(reason: int) -> str:
    return REASON_NAMES.get(reason, f"MQRC_{reason}")
