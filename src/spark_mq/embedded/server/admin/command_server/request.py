"""What a command function gets and gives back: the parsed request, the replies, and the
helpers every inquiry shares (generic names, filters, encoding attribute values).

Runs in the queue-manager process, under the queue manager's lock.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.admin.command_server.pcf import Parameter, PCFError
from spark_mq.mqi.constants import CMQC, CMQCFC

if TYPE_CHECKING:
    from spark_mq.embedded.server.core.security.authority import AuthorityRecords
    from spark_mq.embedded.server.verbs.qmgr import QueueManager


#: a PCF value, as each command keeps it
V = TypeVar("V")


@dataclass
class Request:
    """One command: its parameters by identifier (filters apart), where it runs and the
    user it runs for (its request's MQMD UserIdentifier)."""
    qm: QueueManager
    authority: AuthorityRecords
    command: int
    parameters: dict[int, Parameter]
    filters: list[Parameter] = field(default_factory=list)
    server_conn_id: int = 0  # the command server's own connection
    user: str = ""

    def has(self, parameter: int) -> bool:
        return parameter in self.parameters

    def string(self, parameter: int, default: str = "") -> str:
        found = self.parameters.get(parameter)
        return default if found is None else pcf.text(found.value)

    def integer(self, parameter: int, default: int) -> int:
        found = self.parameters.get(parameter)
        return default if found is None else int(found.value)

    def integers(self, parameter: int) -> list[int] | None:
        found = self.parameters.get(parameter)
        return None if found is None else [int(v) for v in found.value]

    def strings(self, parameter: int) -> list[str]:
        found = self.parameters.get(parameter)
        return [] if found is None else [pcf.text(v) for v in found.value]

    def everything(self, attrs_parameter: int) -> bool:
        """Whether an inquiry asks for every attribute: `attrs_parameter` (its
        MQIACF_*_ATTRS list) absent, or holding MQIACF_ALL."""
        selectors = self.integers(attrs_parameter)
        return selectors is None or CMQCFC.MQIACF_ALL in selectors

    def chosen(self, values: dict[int, V], attrs_parameter: int,
               always: tuple[int, ...] = ()) -> dict[int, V]:
        """The values an inquiry returns: every one, or those `attrs_parameter` lists, the
        `always` ones and those a filter tests."""
        if self.everything(attrs_parameter):
            return dict(values)
        wanted = {*(self.integers(attrs_parameter) or ()), *always,
                  *(f.id for f in self.filters)}
        return {k: v for k, v in values.items() if k in wanted}


@dataclass
class Reply:
    """One response message's outcome and parameter structures (already encoded); `command`
    the MQCFH Command when it is not the request's (an Escape's answers name the command
    their MQSC text is)."""
    parameters: list[bytes] = field(default_factory=list)
    comp_code: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE
    command: int | None = None


#: PCF parameter -> (the MQSC keyword it sets, {PCF value: MQSC word} for integers that
#: stand for keywords, else None): how Create/Change commands become MQSC
KeywordTable = dict[int, tuple[str, dict[int, str] | None]]


def mqsc_value(parameter: Parameter, words: dict[int, str] | None,
               value_error: int = CMQCFC.MQRCCF_PARM_VALUE_ERROR) -> str | int:
    """One PCF parameter's value as its MQSC attribute takes it: the text of a string, the
    word an integer stands for (`value_error` when it stands for none), else the integer."""
    if isinstance(parameter.value, bytes):
        return pcf.text(parameter.value)
    if words is None:
        return int(parameter.value)
    if parameter.value not in words:
        raise PCFError(value_error, parameter.id)
    return words[parameter.value]


def authrec_flags(request: Request) -> set[str]:
    """A Delete's MQIACF_REMOVE_AUTHREC as the MQSC flag it is: MQRAR_NO keeps the object's
    authority records (NOAUTHREC); MQRAR_YES, the default, deletes them (admin/mqsc_apply.py)."""
    remove = request.integer(CMQCFC.MQIACF_REMOVE_AUTHREC, CMQCFC.MQRAR_YES)
    if remove not in (CMQCFC.MQRAR_YES, CMQCFC.MQRAR_NO):
        raise PCFError(CMQCFC.MQRCCF_PARM_VALUE_ERROR, CMQCFC.MQIACF_REMOVE_AUTHREC)
    return {"NOAUTHREC"} if remove == CMQCFC.MQRAR_NO else set()


def unknown_object() -> PCFError:
    """What MQ answers when a name, generic or not, matches no object."""
    return PCFError(CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def matches(pattern: str, name: str) -> bool:
    """A PCF object name: exact, or generic with one trailing '*' ('*' alone: everything)."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def encode(values: dict[int, int | bytes | list[int]]) -> list[bytes]:
    """Attribute values as parameter structures: MQCFIN, MQCFST or MQCFIL by value type."""
    encoded = []
    for selector, value in values.items():
        if isinstance(value, bytes):
            encoded.append(pcf.cfst(selector, value))
        elif isinstance(value, list):
            encoded.append(pcf.cfil(selector, value))
        else:
            encoded.append(pcf.cfin(selector, value))
    return encoded


def passes(filters: list[Parameter], values: dict[int, int | bytes | list[int]]) -> bool:
    """Whether an object's attribute values satisfy the request's filter (at most one, as MQ
    allows); an object without the filtered attribute does not."""
    for condition in filters:
        value = values.get(condition.id)
        if value is None or isinstance(value, list) or condition.operator is None:
            return False
        if isinstance(value, int) != (condition.type == CMQCFC.MQCFT_INTEGER_FILTER):
            raise PCFError(pcf.PARM_ID_ERRORS[condition.type], condition.id)
        if not _compare(value, condition.value, condition.operator):
            return False
    return True


def _compare(value: int | bytes, wanted: int | bytes, operator: int) -> bool:
    if isinstance(value, bytes) and isinstance(wanted, bytes):
        have, want = pcf.text(value), pcf.text(wanted)
        if operator in (CMQCFC.MQCFOP_LIKE, CMQCFC.MQCFOP_NOT_LIKE):
            like = _generic(want).fullmatch(have) is not None
            return like if operator == CMQCFC.MQCFOP_LIKE else not like
        return _ordered(have, want, operator)
    if isinstance(value, int) and isinstance(wanted, int):
        return _ordered(value, wanted, operator)
    return False


def _ordered(have: int | str, want: int | str, operator: int) -> bool:
    if operator == CMQCFC.MQCFOP_EQUAL:
        return have == want
    if operator == CMQCFC.MQCFOP_NOT_EQUAL:
        return have != want
    if isinstance(have, int) and isinstance(want, int):
        comparisons = {CMQCFC.MQCFOP_LESS: have < want, CMQCFC.MQCFOP_GREATER: have > want,
                       CMQCFC.MQCFOP_NOT_LESS: have >= want, CMQCFC.MQCFOP_NOT_GREATER: have <= want}
    else:
        text_have, text_want = str(have), str(want)
        comparisons = {CMQCFC.MQCFOP_LESS: text_have < text_want,
                       CMQCFC.MQCFOP_GREATER: text_have > text_want,
                       CMQCFC.MQCFOP_NOT_LESS: text_have >= text_want,
                       CMQCFC.MQCFOP_NOT_GREATER: text_have <= text_want}
    if operator in comparisons:
        return comparisons[operator]
    # CONTAINS/EXCLUDES(_GEN) apply to list attributes, which no filterable attribute here is
    raise PCFError(CMQCFC.MQRCCF_CFIF_OPERATOR_ERROR if isinstance(have, int)
                   else CMQCFC.MQRCCF_CFSF_OPERATOR_ERROR)


def _generic(pattern: str) -> re.Pattern[str]:
    """MQCFOP_LIKE's generic value: a trailing '*' matches any ending."""
    if pattern.endswith("*"):
        return re.compile(re.escape(pattern[:-1]) + ".*", re.DOTALL)
    return re.compile(re.escape(pattern))
