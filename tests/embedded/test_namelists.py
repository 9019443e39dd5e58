"""Namelists on a real embedded queue manager: MQSC, PCF (MQCFSL string lists) and MQINQ,
through the ibmmq API."""
from __future__ import annotations

import pytest


@pytest.fixture
def pcf(conn, ibmmq):
    executor = ibmmq.PCFExecute(conn)
    yield executor
    executor.disconnect()


def _names(values: list[bytes]) -> list[bytes]:
    return [value.strip() for value in values]


def _create(pcf, ibmmq, name: str, names: list[bytes], replace: bool = True) -> None:
    pcf.MQCMD_CREATE_NAMELIST([
        ibmmq.CFST(Parameter=ibmmq.CMQC.MQCA_NAMELIST_NAME, String=name.encode()),
        ibmmq.CFSL(Parameter=ibmmq.CMQC.MQCA_NAMES, Strings=names),
        ibmmq.CFIN(Parameter=ibmmq.CMQCFC.MQIACF_REPLACE,
                   Value=ibmmq.CMQCFC.MQRP_YES if replace else ibmmq.CMQCFC.MQRP_NO)])


def _inquire(pcf, ibmmq, name: str) -> list[dict]:
    return pcf.MQCMD_INQUIRE_NAMELIST({ibmmq.CMQC.MQCA_NAMELIST_NAME: name})


@pytest.mark.parametrize("names", [[], [b"ONE"], [b"ONE", b"TWO", b"THREE"]])
def test_create_inquire_delete(pcf, ibmmq, names):
    _create(pcf, ibmmq, "TEST.NL.PCF", names)
    try:
        [found] = _inquire(pcf, ibmmq, "TEST.NL.PCF")
        assert found[ibmmq.CMQC.MQIA_NAME_COUNT] == len(names)
        assert _names(found[ibmmq.CMQC.MQCA_NAMES]) == names if names else True
    finally:
        pcf.MQCMD_DELETE_NAMELIST({ibmmq.CMQC.MQCA_NAMELIST_NAME: "TEST.NL.PCF"})
    with pytest.raises(ibmmq.MQMIError) as info:
        _inquire(pcf, ibmmq, "TEST.NL.PCF")
    assert info.value.reason == ibmmq.CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_create_without_replace_of_an_existing_one_fails(pcf, ibmmq):
    _create(pcf, ibmmq, "TEST.NL.DUP", [b"A"])
    try:
        with pytest.raises(ibmmq.MQMIError) as info:
            _create(pcf, ibmmq, "TEST.NL.DUP", [b"B"], replace=False)
        assert info.value.reason == ibmmq.CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS
    finally:
        pcf.MQCMD_DELETE_NAMELIST({ibmmq.CMQC.MQCA_NAMELIST_NAME: "TEST.NL.DUP"})


def test_change_copy_and_names(pcf, ibmmq):
    _create(pcf, ibmmq, "TEST.NL.FROM", [b"A", b"B"])
    try:
        pcf.MQCMD_CHANGE_NAMELIST({ibmmq.CMQC.MQCA_NAMELIST_NAME: "TEST.NL.FROM",
                                   ibmmq.CMQC.MQCA_NAMELIST_DESC: "changed"})
        pcf.MQCMD_COPY_NAMELIST({ibmmq.CMQCFC.MQCACF_FROM_NAMELIST_NAME: "TEST.NL.FROM",
                                 ibmmq.CMQCFC.MQCACF_TO_NAMELIST_NAME: "TEST.NL.TO"})
        [copy] = _inquire(pcf, ibmmq, "TEST.NL.TO")
        assert copy[ibmmq.CMQC.MQCA_NAMELIST_DESC].strip() == b"changed"
        assert _names(copy[ibmmq.CMQC.MQCA_NAMES]) == [b"A", b"B"]
        [listed] = pcf.MQCMD_INQUIRE_NAMELIST_NAMES({ibmmq.CMQC.MQCA_NAMELIST_NAME: "TEST.NL.*"})
        assert _names(listed[ibmmq.CMQCFC.MQCACF_NAMELIST_NAMES]) == [b"TEST.NL.FROM", b"TEST.NL.TO"]
    finally:
        for name in ("TEST.NL.FROM", "TEST.NL.TO"):
            pcf.MQCMD_DELETE_NAMELIST({ibmmq.CMQC.MQCA_NAMELIST_NAME: name})


def test_mqsc_define_display_and_mqinq(qm, conn, ibmmq):
    qm.run_mqsc("DEFINE NAMELIST(TEST.NL.MQSC) NAMES(DEV.QUEUE.1, 'Mixed') DESCR('via MQSC') REPLACE")
    try:
        assert "NAMES(DEV.QUEUE.1,Mixed)" in qm.run_mqsc("DISPLAY NAMELIST(TEST.NL.MQSC) NAMES")
        od = ibmmq.OD(ObjectType=ibmmq.CMQC.MQOT_NAMELIST, ObjectName=b"TEST.NL.MQSC")
        handle = ibmmq.Queue(conn, od, ibmmq.CMQC.MQOO_INQUIRE)
        try:
            assert handle.inquire(ibmmq.CMQC.MQIA_NAME_COUNT) == 2
            assert handle.inquire(ibmmq.CMQC.MQCA_NAMELIST_DESC).strip() == b"via MQSC"
            names = handle.inquire(ibmmq.CMQC.MQCA_NAMES)
            assert [names[:48].strip(), names[48:96].strip()] == [b"DEV.QUEUE.1", b"Mixed"]
        finally:
            handle.close()
    finally:
        qm.run_mqsc("DELETE NAMELIST(TEST.NL.MQSC)")


def test_a_namelist_opens_only_to_inquire(qm, conn, ibmmq):
    qm.run_mqsc("DEFINE NAMELIST(TEST.NL.OPEN) REPLACE")
    try:
        od = ibmmq.OD(ObjectType=ibmmq.CMQC.MQOT_NAMELIST, ObjectName=b"TEST.NL.OPEN")
        with pytest.raises(ibmmq.MQMIError) as info:
            ibmmq.Queue(conn, od, ibmmq.CMQC.MQOO_OUTPUT)
        assert info.value.reason == ibmmq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    finally:
        qm.run_mqsc("DELETE NAMELIST(TEST.NL.OPEN)")
    od = ibmmq.OD(ObjectType=ibmmq.CMQC.MQOT_NAMELIST, ObjectName=b"TEST.NL.OPEN")
    with pytest.raises(ibmmq.MQMIError) as info:
        ibmmq.Queue(conn, od, ibmmq.CMQC.MQOO_INQUIRE)
    assert info.value.reason == ibmmq.CMQC.MQRC_UNKNOWN_OBJECT_NAME
