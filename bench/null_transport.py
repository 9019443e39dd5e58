"""A stand-in for `ibmmq.ibmmqc` whose verbs return at once: the ceiling of the ibmmq layer.

    import bench.null_transport as null
    null.install()          # before `import ibmmq`
    import ibmmq            # every verb now costs only ibmmq's own Python work

MQGET hands back the same 1 KiB body and the caller's MD/GMO; MQPUT hands back the MD/PMO.
Nothing is queued: this measures what packing, unpacking and the call boundary cost, which
is the most any transport (IBM's C client included) can deliver through ibmmq's Python API.
"""
from __future__ import annotations

import importlib.metadata
import sys
import types

BODY = b"x" * 1024


def _module() -> types.ModuleType:
    module = types.ModuleType("ibmmq.ibmmqc")
    module.__version__ = importlib.metadata.version("ibmmq")
    module.__cmdlevel__ = 940
    module.__mqbuild__ = "common"
    module.__strucversions__ = {"gmo": 4, "pmo": 3, "od": 4, "sts": 2, "cno": 8, "csp": 3,
                                "sco": 7, "cd": 13}
    module.error = type("error", (Exception,), {})
    verbs = {
        "MQCBINIT": lambda function: None,
        "MQLOGCF": lambda *args: (0,),
        "MQCONN": lambda name: (1, 0, 0),
        "MQCONNX": lambda name, cno, cd, csp, sco, bno: (1, 0, 0),
        "MQDISC": lambda hconn: (0, 0),
        "MQOPEN": lambda hconn, od, options: (101, od, 0, 0),
        "MQCLOSE": lambda hconn, hobj, options: (0, 0),
        "MQPUT": lambda hconn, hobj, md, pmo, msg: (md, pmo, 0, 0),
        "MQPUT1": lambda hconn, od, md, pmo, msg: (md, pmo, 0, 0),
        "MQGET": lambda hconn, hobj, md, gmo, length: (BODY, md, gmo, len(BODY), 0, 0),
        "MQBEGIN": lambda hconn: (0, 0),
        "MQCMIT": lambda hconn: (0, 0),
        "MQBACK": lambda hconn: (0, 0),
        "MQSTAT": lambda hconn, stat_type, sts: (sts, 0, 0),
        "MQINQ": lambda hconn, hobj, selectors, ints, ic, cc, cl: ([0] * ic, b" " * cl, 0, 0),
        "MQSET": lambda hconn, hobj, selectors, ints, chars: (0, 0),
        "MQCRTMH": lambda hconn, cmho: (1, 0, 0),
        "MQDLTMH": lambda hconn, hmsg, dmho: (0, 0),
        "MQSETMP": lambda *args: (0, 0),
        "MQINQMP": lambda *args: (None, 0, None, 2, 2471),
        "MQDLTMP": lambda *args: (0, 0),
        "MQSUB": lambda hconn, sd, hobj: (sd, hobj, 1, 0, 0),
        "MQSUBRQ": lambda hconn, hsub, action, sro: (sro, 0, 0),
        "MQCB": lambda *args: (0, 0),
        "MQCTL": lambda *args: (0, 0),
    }
    for name, function in verbs.items():
        setattr(module, name, function)
    return module


def install() -> None:
    """Make `ibmmq` in this process use the null stand-in. Must run before `import ibmmq`."""
    if "ibmmq" in sys.modules:
        raise RuntimeError("install() must run before ibmmq is imported")
    module = _module()
    sys.modules["ibmmq.ibmmqc"] = module
    sys.modules["ibmmqc"] = module
