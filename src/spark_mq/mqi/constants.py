"""The MQI constants (CMQC, and CMQCFC/CMQXC for PCF) and reason-code names, taken from the
installed ibmmq package.

`CMQC` is IBM's own constants file, shipped inside `ibmmq` as plain Python. It is loaded by
path so that neither side has to import `ibmmq` itself, which would load (and need) its C
extension `ibmmqc`. `REASON_NAMES` / `reason_name` turn an MQRC number back into its name for
messages.
"""
from __future__ import annotations

import importlib.util
import os
import types

# Always the Linux x64 definitions: the embedded queue manager packs the MQI structures in that
# layout (see structs.py), whatever machine it runs on.
_CMQC_FILE = "_CMQC_linux_x64.py"


def _load_cmqc(file_name: str = _CMQC_FILE, module_name: str = "_spark_mq_cmqc") -> types.ModuleType:
    spec = importlib.util.find_spec("ibmmq")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the ibmmq package is required (pip install ibmmq)")
    path = os.path.join(list(spec.submodule_search_locations)[0], file_name)
    module_spec = importlib.util.spec_from_file_location(module_name, path)
    if module_spec is None or module_spec.loader is None:
        raise ImportError(f"cannot load the MQI constants from {path}")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


#: IBM's CMQC module. Its thousands of constants are only known once the file is loaded, so
#: every attribute is `Any` to the type checker (ModuleType's __getattr__); modules that keep a
#: constant annotate it with its real type (int, or bytes for StrucIds and formats).
CMQC: types.ModuleType = _load_cmqc()
#: IBM's CMQCFC (PCF: MQCMD_*, MQCFT_*, MQRCCF_*, MQIACF_* ...) and CMQXC (channels: MQCHT_*),
#: plain constants files like CMQC, loaded the same way for the embedded command server.
CMQCFC: types.ModuleType = _load_cmqc("CMQCFC.py", "_spark_mq_cmqcfc")
CMQXC: types.ModuleType = _load_cmqc("CMQXC.py", "_spark_mq_cmqxc")


def _reason_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, value in vars(CMQC).items():
        if name.startswith("MQRC_") and isinstance(value, int):
            names.setdefault(value, name)  # the first name wins where CMQC has aliases
    return names


#: reason code number -> "MQRC_..." name
REASON_NAMES: dict[int, str] = _reason_names()


def reason_name(reason: int) -> str:
    """The MQRC_* name of a reason code, or "MQRC_<number>" for one CMQC does not define."""
    return REASON_NAMES.get(reason, f"MQRC_{reason}")
