"""NAMELIST objects: named lists of up to 256 names (runs in the queue-manager process, under
its lock).

A namelist only holds names. The queue manager reads a namelist of clusters, named by
REPOSNL or an object's CLUSNL, whenever it asks which clusters that object is in
(clusters/records.py `clusters_of`), so a change here takes effect there at once; it reads
no other (AUTHINFO lists are for a feature the embedded queue manager does not have).
Applications and IBM's tools define, change, inquire (PCF, MQINQ) and delete them. `NAMELIST` describes
the kind (core/named_objects.py), and MQSC, PCF, MQINQ and the store work from it; what is
a namelist's own is here: NAMES, a list checked by `check_names`, and NLTYPE's keywords.
"""
from __future__ import annotations

import re

from spark_mq.embedded.server.core.mqsc_attributes import AttributeSpec
from spark_mq.embedded.server.core.named_objects import NamedAttribute, NamedKind
from spark_mq.mqi.constants import CMQC, CMQCFC

#: the most names one namelist holds, on every platform
MAX_NAMES = 256
NAME_LENGTH = 48
_NAMELIST = frozenset({"NAMELIST"})
_LIST_ITEM = re.compile(r"'((?:[^']|'')*)'|([^\s,']+)")
#: NLTYPE keywords and their PCF values (MQIA_NAMELIST_TYPE)
TYPES = {"NONE": CMQC.MQNT_NONE, "QUEUE": CMQC.MQNT_Q, "CLUSTER": CMQC.MQNT_CLUSTER,
         "AUTHINFO": CMQC.MQNT_AUTH_INFO}
_TYPE_KEYWORDS = {value: keyword for keyword, value in TYPES.items()}
#: MQSC's short form of an NLTYPE value
NLTYPE_SYNONYMS = {"Q": "QUEUE"}
_NLTYPE = AttributeSpec("enum", "NONE", _NAMELIST, choices=tuple(TYPES))


def split_names(text: str) -> list[str]:
    """NAMES(a, 'b', c) as the parser keeps it, as a list; NAMES() is the empty list."""
    return [bare or quoted.replace("''", "'") for quoted, bare in _LIST_ITEM.findall(text)]


def check_names(names: list[str]) -> list[str]:
    """NAMES as MQ accepts them: at most 256, each at most 48 characters; else ValueError."""
    if len(names) > MAX_NAMES:
        raise ValueError(f"{len(names)} names; a namelist holds at most {MAX_NAMES}")
    for name in names:
        if len(name) > NAME_LENGTH:
            raise ValueError(f"name '{name}' is longer than {NAME_LENGTH} characters")
    return names


def _nltype(text: str) -> str:
    try:
        return str(_NLTYPE.coerce(NLTYPE_SYNONYMS.get(text, text), quoted=True))
    except ValueError as err:
        raise ValueError(f"{err} (valid: {_NLTYPE.describe()})") from None


def _nltype_of(value: int) -> str:
    keyword = _TYPE_KEYWORDS.get(value)
    if keyword is None:
        raise ValueError(f"NLTYPE {value} is not valid")
    return keyword


def _check_values(values: dict) -> None:
    values["NAMES"] = check_names([str(n) for n in values.get("NAMES", [])])


#: the namelist kind: DESCR, NLTYPE (z/OS's: PCF takes it and Inquire selects by it, but
#: neither Inquire nor MQINQ returns it), NAMES
NAMELIST = NamedKind(
    "NAMELIST",
    attributes={
        "DESCR": NamedAttribute(AttributeSpec("str", "", _NAMELIST, max_length=64),
                                parameter=CMQC.MQCA_NAMELIST_DESC,
                                length=CMQC.MQ_NAMELIST_DESC_LENGTH),
        "NLTYPE": NamedAttribute(_NLTYPE, _nltype, CMQC.MQIA_NAMELIST_TYPE,
                                 to_number=TYPES.__getitem__, from_number=_nltype_of,
                                 inquired=False),
        "NAMES": NamedAttribute(AttributeSpec("str", "", _NAMELIST, max_length=NAME_LENGTH),
                                lambda text: check_names(split_names(text)), CMQC.MQCA_NAMES,
                                CMQC.MQ_OBJECT_NAME_LENGTH, listed=True, from_strings=check_names,
                                count=("NAMCOUNT", CMQC.MQIA_NAME_COUNT)),
    },
    messages={"DEFINE": "IBM MQ namelist created.", "ALTER": "IBM MQ namelist changed.",
              "DELETE": "IBM MQ namelist deleted.",
              "DISPLAY": "AMQ8550I: Display namelist details."},
    example="MY.LIST", object_type=CMQC.MQOT_NAMELIST, name_parameter=CMQC.MQCA_NAMELIST_NAME,
    name_length=CMQC.MQ_NAMELIST_NAME_LENGTH, names_parameter=CMQCFC.MQCACF_NAMELIST_NAMES,
    copy_parameters=(CMQCFC.MQCACF_FROM_NAMELIST_NAME, CMQCFC.MQCACF_TO_NAMELIST_NAME),
    attrs_parameter=CMQCFC.MQIACF_NAMELIST_ATTRS,
    pcf_commands=(CMQCFC.MQCMD_INQUIRE_NAMELIST, CMQCFC.MQCMD_INQUIRE_NAMELIST_NAMES,
                  CMQCFC.MQCMD_CREATE_NAMELIST, CMQCFC.MQCMD_COPY_NAMELIST,
                  CMQCFC.MQCMD_CHANGE_NAMELIST, CMQCFC.MQCMD_DELETE_NAMELIST),
    inquire_filter=("NLTYPE", CMQC.MQNT_ALL), finish=_check_values)
