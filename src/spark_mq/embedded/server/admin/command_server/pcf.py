"""PCF messages: the MQCFH header and its parameter structures, read from requests and
written into responses (runs in the queue-manager process).

A PCF message is an MQCFH followed by `ParameterCount` structures, each starting with its
Type and StrucLength: MQCFIN/MQCFIN64 (integer), MQCFST (string), MQCFIL/MQCFIL64
(integer list), MQCFSL (string list), MQCFBS (byte string), MQCFIF/MQCFSF/MQCFBF (filters)
and MQCFGR (a group: the next ParameterCount structures belong to it and are not counted in
the header's count). Integers are in the machine's byte order (MQENC_NATIVE, what ibmmq
packs); strings are padded to a multiple of four bytes.

Malformed requests raise `PCFError` with the MQRCCF_* reason MQ's command server answers
(and, where MQ names the culprit, the parameter identifier).
"""
from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# the structures a response is made of, used as pcf.cfin(...) and so on by the commands
from spark_mq.embedded.server.core.pcf_structures import cfbs as cfbs
from spark_mq.embedded.server.core.pcf_structures import cfil as cfil
from spark_mq.embedded.server.core.pcf_structures import cfin as cfin
from spark_mq.embedded.server.core.pcf_structures import cfin64 as cfin64
from spark_mq.embedded.server.core.pcf_structures import cfsl as cfsl
from spark_mq.embedded.server.core.pcf_structures import cfst as cfst
from spark_mq.mqi.constants import CMQCFC

_HEADER = struct.Struct("=9i")
_TWO = struct.Struct("=2i")
_THREE = struct.Struct("=3i")
_INT = struct.Struct("=i")
_QUAD = struct.Struct("=q")
HEADER_LENGTH: int = CMQCFC.MQCFH_STRUC_LENGTH

#: the operators of MQCFIF/MQCFSF/MQCFBF filters
OPERATORS = frozenset({
    CMQCFC.MQCFOP_LESS, CMQCFC.MQCFOP_EQUAL, CMQCFC.MQCFOP_GREATER, CMQCFC.MQCFOP_NOT_LESS,
    CMQCFC.MQCFOP_NOT_EQUAL, CMQCFC.MQCFOP_NOT_GREATER, CMQCFC.MQCFOP_LIKE,
    CMQCFC.MQCFOP_NOT_LIKE, CMQCFC.MQCFOP_CONTAINS, CMQCFC.MQCFOP_EXCLUDES,
    CMQCFC.MQCFOP_CONTAINS_GEN, CMQCFC.MQCFOP_EXCLUDES_GEN})
FILTER_TYPES = frozenset({CMQCFC.MQCFT_INTEGER_FILTER, CMQCFC.MQCFT_STRING_FILTER,
                          CMQCFC.MQCFT_BYTE_STRING_FILTER})


class PCFError(Exception):
    """A request the command server answers with an error: MQCC_FAILED and `reason`, plus
    MQIACF_PARAMETER_ID when MQ names the parameter in its error response."""

    def __init__(self, reason: int, parameter: int | None = None):
        super().__init__(reason, parameter)
        self.reason = reason
        self.parameter = parameter


@dataclass
class Header:
    """The MQCFH fields, in their order."""
    type: int
    struc_length: int
    version: int
    command: int
    msg_seq_number: int
    control: int
    comp_code: int
    reason: int
    parameter_count: int


@dataclass
class Parameter:
    """One parameter structure of a request.

    `value` is an int (MQCFIN/MQCFIN64, and the filter value of MQCFIF), bytes (MQCFST,
    MQCFBS, and the filter value of MQCFSF/MQCFBF; MQCFST text without its padding), a list
    of ints or of bytes (MQCFIL, MQCFSL), or a list of Parameters (MQCFGR)."""
    type: int
    id: int
    value: Any
    operator: int | None = None
    members: list[Parameter] = field(default_factory=list)

    @property
    def is_filter(self) -> bool:
        return self.type in FILTER_TYPES


# === reading a request ====================================================================
def parse_header(data: bytes) -> Header:
    """The MQCFH of a command message, checked as the command server checks it."""
    if len(data) < HEADER_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_MSG_LENGTH_ERROR)
    header = Header(*_HEADER.unpack_from(data))
    if header.type not in (CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFT_COMMAND_XR):
        raise PCFError(CMQCFC.MQRCCF_CFH_TYPE_ERROR)
    if header.struc_length != HEADER_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CFH_LENGTH_ERROR)
    if not CMQCFC.MQCFH_VERSION_1 <= header.version <= CMQCFC.MQCFH_CURRENT_VERSION:
        raise PCFError(CMQCFC.MQRCCF_CFH_VERSION_ERROR)
    if header.msg_seq_number != 1:  # a command is always one message
        raise PCFError(CMQCFC.MQRCCF_CFH_MSG_SEQ_NUMBER_ERR)
    if header.control != CMQCFC.MQCFC_LAST:
        raise PCFError(CMQCFC.MQRCCF_CFH_CONTROL_ERROR)
    if header.parameter_count < 0:
        raise PCFError(CMQCFC.MQRCCF_CFH_PARM_COUNT_ERROR)
    return header


def command_of(data: bytes) -> int:
    """The MQCFH Command field of a message too malformed to parse (MQCMD_NONE if absent):
    what an error reply names as its command."""
    if len(data) < 16:
        return int(CMQCFC.MQCMD_NONE)
    return int(_INT.unpack_from(data, 12)[0])


def parse_parameters(data: bytes, count: int) -> list[Parameter]:
    """The `count` parameter structures after the MQCFH (groups hold their members)."""
    reader = _Reader(data, HEADER_LENGTH)
    parameters = reader.parameters(count)
    if reader.offset != len(data):
        raise PCFError(CMQCFC.MQRCCF_MSG_LENGTH_ERROR)  # bytes beyond the last structure
    return parameters


#: groups within groups a request may nest (MQ's own nest one or two deep): each level is a
#: Python call, and a few kilobytes of nested MQCFGRs must not exhaust the stack
MAX_GROUP_DEPTH = 16


class _Reader:
    def __init__(self, data: bytes, offset: int):
        self.data = data
        self.offset = offset
        self.depth = 0

    def parameters(self, count: int) -> list[Parameter]:
        found = []
        for _ in range(count):
            if self.offset == len(self.data):
                raise PCFError(CMQCFC.MQRCCF_PARM_COUNT_TOO_BIG)  # fewer structures than counted
            found.append(self.parameter())
        return found

    def parameter(self) -> Parameter:
        if self.offset + 12 > len(self.data):
            raise PCFError(CMQCFC.MQRCCF_MSG_LENGTH_ERROR)
        kind, length = _TWO.unpack_from(self.data, self.offset)
        reader = _STRUCTURES.get(kind)
        if reader is None:
            raise PCFError(CMQCFC.MQRCCF_STRUCTURE_TYPE_ERROR)
        length_error = _LENGTH_ERRORS[kind]
        if length < 12 or length % 4 or self.offset + length > len(self.data):
            raise PCFError(length_error)
        body = self.data[self.offset:self.offset + length]
        self.offset += length
        parameter = reader(body)
        if kind == CMQCFC.MQCFT_GROUP:
            if parameter.value < 0 or self.depth >= MAX_GROUP_DEPTH:
                raise PCFError(CMQCFC.MQRCCF_CFGR_PARM_COUNT_ERROR, parameter.id)
            self.depth += 1
            parameter.members = self.parameters(parameter.value)
            self.depth -= 1
        return parameter


def _fields(body: bytes, count: int, error: int) -> tuple[int, ...]:
    """The first `count` MQLONG fields of a structure (Type, StrucLength, Parameter, ...)."""
    if len(body) < 4 * count:
        raise PCFError(error)
    return struct.unpack_from(f"={count}i", body)


def _read_cfin(body: bytes) -> Parameter:
    if len(body) != CMQCFC.MQCFIN_STRUC_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CFIN_LENGTH_ERROR)
    kind, _, parameter, value = _fields(body, 4, CMQCFC.MQRCCF_CFIN_LENGTH_ERROR)
    return Parameter(kind, parameter, value)


def _read_cfin64(body: bytes) -> Parameter:
    if len(body) != CMQCFC.MQCFIN64_STRUC_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CFIN_LENGTH_ERROR)
    kind, _, parameter, _ = _fields(body, 4, CMQCFC.MQRCCF_CFIN_LENGTH_ERROR)
    return Parameter(kind, parameter, _QUAD.unpack_from(body, 16)[0])


def _read_cfst(body: bytes) -> Parameter:
    kind, _, parameter, _, length = _fields(body, 5, CMQCFC.MQRCCF_CFST_LENGTH_ERROR)
    fixed = CMQCFC.MQCFST_STRUC_LENGTH_FIXED
    if length < 0 or fixed + length > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFST_STRING_LENGTH_ERR, parameter)
    return Parameter(kind, parameter, body[fixed:fixed + length])


def _read_cfil(body: bytes, item: str = "i") -> Parameter:
    kind, _, parameter, count = _fields(body, 4, CMQCFC.MQRCCF_CFIL_LENGTH_ERROR)
    size = struct.calcsize("=" + item)
    if count < 0:
        raise PCFError(CMQCFC.MQRCCF_CFIL_COUNT_ERROR, parameter)
    if 16 + size * count != len(body):
        raise PCFError(CMQCFC.MQRCCF_CFIL_LENGTH_ERROR, parameter)
    return Parameter(kind, parameter, list(struct.unpack_from(f"={count}{item}", body, 16)))


def _read_cfil64(body: bytes) -> Parameter:
    return _read_cfil(body, "q")


def _read_cfsl(body: bytes) -> Parameter:
    kind, _, parameter, _, count, length = _fields(body, 6, CMQCFC.MQRCCF_CFSL_LENGTH_ERROR)
    fixed = CMQCFC.MQCFSL_STRUC_LENGTH_FIXED
    # empty strings take no bytes: without a bound of the structure's size, 24 bytes could
    # ask for a list of 2**31 of them
    if count < 0 or count > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFSL_COUNT_ERROR, parameter)
    if length < 0:
        raise PCFError(CMQCFC.MQRCCF_CFSL_STRING_LENGTH_ERR, parameter)
    if fixed + count * length > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFSL_TOTAL_LENGTH_ERROR, parameter)
    strings = [body[fixed + i * length:fixed + (i + 1) * length] for i in range(count)]
    return Parameter(kind, parameter, strings)


def _read_cfbs(body: bytes) -> Parameter:
    kind, _, parameter, length = _fields(body, 4, CMQCFC.MQRCCF_CFBS_LENGTH_ERROR)
    fixed = CMQCFC.MQCFBS_STRUC_LENGTH_FIXED
    if length < 0 or fixed + length > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFBS_STRING_LENGTH_ERR, parameter)
    return Parameter(kind, parameter, body[fixed:fixed + length])


def _read_cfif(body: bytes) -> Parameter:
    if len(body) != CMQCFC.MQCFIF_STRUC_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CFIF_LENGTH_ERROR)
    kind, _, parameter, operator, value = _fields(body, 5, CMQCFC.MQRCCF_CFIF_LENGTH_ERROR)
    if operator not in OPERATORS:
        raise PCFError(CMQCFC.MQRCCF_CFIF_OPERATOR_ERROR, parameter)
    return Parameter(kind, parameter, value, operator)


def _read_cfsf(body: bytes) -> Parameter:
    kind, _, parameter, operator, _, length = _fields(body, 6, CMQCFC.MQRCCF_CFSF_LENGTH_ERROR)
    fixed = CMQCFC.MQCFSF_STRUC_LENGTH_FIXED
    if operator not in OPERATORS:
        raise PCFError(CMQCFC.MQRCCF_CFSF_OPERATOR_ERROR, parameter)
    if length < 0 or fixed + length > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFSF_FILTER_VAL_LEN_ERR, parameter)
    return Parameter(kind, parameter, body[fixed:fixed + length], operator)


def _read_cfbf(body: bytes) -> Parameter:
    kind, _, parameter, operator, length = _fields(body, 5, CMQCFC.MQRCCF_CFBF_LENGTH_ERROR)
    fixed = CMQCFC.MQCFBF_STRUC_LENGTH_FIXED
    if operator not in OPERATORS:
        raise PCFError(CMQCFC.MQRCCF_CFBF_OPERATOR_ERROR, parameter)
    if length < 0 or fixed + length > len(body):
        raise PCFError(CMQCFC.MQRCCF_CFBF_FILTER_VAL_LEN_ERR, parameter)
    return Parameter(kind, parameter, body[fixed:fixed + length], operator)


def _read_cfgr(body: bytes) -> Parameter:
    if len(body) != CMQCFC.MQCFGR_STRUC_LENGTH:
        raise PCFError(CMQCFC.MQRCCF_CFGR_LENGTH_ERROR)
    kind, _, parameter, count = _fields(body, 4, CMQCFC.MQRCCF_CFGR_LENGTH_ERROR)
    return Parameter(kind, parameter, count)


_STRUCTURES = {
    CMQCFC.MQCFT_INTEGER: _read_cfin, CMQCFC.MQCFT_INTEGER64: _read_cfin64,
    CMQCFC.MQCFT_STRING: _read_cfst, CMQCFC.MQCFT_INTEGER_LIST: _read_cfil,
    CMQCFC.MQCFT_INTEGER64_LIST: _read_cfil64, CMQCFC.MQCFT_STRING_LIST: _read_cfsl,
    CMQCFC.MQCFT_BYTE_STRING: _read_cfbs, CMQCFC.MQCFT_INTEGER_FILTER: _read_cfif,
    CMQCFC.MQCFT_STRING_FILTER: _read_cfsf, CMQCFC.MQCFT_BYTE_STRING_FILTER: _read_cfbf,
    CMQCFC.MQCFT_GROUP: _read_cfgr,
}
_LENGTH_ERRORS = {
    CMQCFC.MQCFT_INTEGER: CMQCFC.MQRCCF_CFIN_LENGTH_ERROR,
    CMQCFC.MQCFT_INTEGER64: CMQCFC.MQRCCF_CFIN_LENGTH_ERROR,
    CMQCFC.MQCFT_STRING: CMQCFC.MQRCCF_CFST_LENGTH_ERROR,
    CMQCFC.MQCFT_INTEGER_LIST: CMQCFC.MQRCCF_CFIL_LENGTH_ERROR,
    CMQCFC.MQCFT_INTEGER64_LIST: CMQCFC.MQRCCF_CFIL_LENGTH_ERROR,
    CMQCFC.MQCFT_STRING_LIST: CMQCFC.MQRCCF_CFSL_LENGTH_ERROR,
    CMQCFC.MQCFT_BYTE_STRING: CMQCFC.MQRCCF_CFBS_LENGTH_ERROR,
    CMQCFC.MQCFT_INTEGER_FILTER: CMQCFC.MQRCCF_CFIF_LENGTH_ERROR,
    CMQCFC.MQCFT_STRING_FILTER: CMQCFC.MQRCCF_CFSF_LENGTH_ERROR,
    CMQCFC.MQCFT_BYTE_STRING_FILTER: CMQCFC.MQRCCF_CFBF_LENGTH_ERROR,
    CMQCFC.MQCFT_GROUP: CMQCFC.MQRCCF_CFGR_LENGTH_ERROR,
}
#: the reasons MQ gives for a parameter the command does not take, per structure type
PARM_ID_ERRORS = {
    CMQCFC.MQCFT_INTEGER: CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
    CMQCFC.MQCFT_INTEGER64: CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR,
    CMQCFC.MQCFT_STRING: CMQCFC.MQRCCF_CFST_PARM_ID_ERROR,
    CMQCFC.MQCFT_INTEGER_LIST: CMQCFC.MQRCCF_CFIL_PARM_ID_ERROR,
    CMQCFC.MQCFT_INTEGER64_LIST: CMQCFC.MQRCCF_CFIL_PARM_ID_ERROR,
    CMQCFC.MQCFT_STRING_LIST: CMQCFC.MQRCCF_CFSL_PARM_ID_ERROR,
    CMQCFC.MQCFT_BYTE_STRING: CMQCFC.MQRCCF_CFBS_PARM_ID_ERROR,
    CMQCFC.MQCFT_INTEGER_FILTER: CMQCFC.MQRCCF_CFIF_PARM_ID_ERROR,
    CMQCFC.MQCFT_STRING_FILTER: CMQCFC.MQRCCF_CFSF_PARM_ID_ERROR,
    CMQCFC.MQCFT_BYTE_STRING_FILTER: CMQCFC.MQRCCF_CFBF_PARM_ID_ERROR,
    CMQCFC.MQCFT_GROUP: CMQCFC.MQRCCF_CFGR_PARM_ID_ERROR,
}
#: the reasons MQ gives for a parameter given twice, per structure type
DUPLICATE_ERRORS = {
    CMQCFC.MQCFT_INTEGER: CMQCFC.MQRCCF_CFIN_DUPLICATE_PARM,
    CMQCFC.MQCFT_STRING: CMQCFC.MQRCCF_CFST_DUPLICATE_PARM,
    CMQCFC.MQCFT_STRING_LIST: CMQCFC.MQRCCF_CFSL_DUPLICATE_PARM,
    CMQCFC.MQCFT_BYTE_STRING: CMQCFC.MQRCCF_CFBS_DUPLICATE_PARM,
}


def text(value: bytes) -> str:
    """An MQCFST value as text: up to the first NUL, trailing blanks dropped (MQ pads
    names with blanks, ibmmq pads the structure with NULs)."""
    end = value.find(b"\0")
    if end >= 0:
        value = value[:end]
    return value.decode("utf-8", "replace").rstrip(" ")


def string_in(structures: Sequence[bytes], parameter: int) -> str | None:
    """The text of the MQCFST `parameter` among a response's encoded structures (one per
    item), an MQCFBS's bytes in hexadecimal (as runmqsc shows them), or None."""
    for structure in structures:
        kind, _, found = _THREE.unpack_from(structure)
        if kind == CMQCFC.MQCFT_STRING and found == parameter:
            return text(_read_cfst(structure).value)
        if kind == CMQCFC.MQCFT_BYTE_STRING and found == parameter:  # e.g. a SubId
            return bytes(_read_cfbs(structure).value).hex().upper()
    return None


# === writing a response ===================================================================
# (the parameter structures are pcf_structures.py's, shared with the event messages, events/)
def header(command: int, seq: int, last: bool, comp_code: int, reason: int, count: int,
           version: int = CMQCFC.MQCFH_VERSION_1) -> bytes:
    """The MQCFH of one response message."""
    control = CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST
    return _HEADER.pack(CMQCFC.MQCFT_RESPONSE, HEADER_LENGTH, version, command, seq, control,
                        comp_code, reason, count)
