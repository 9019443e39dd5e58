"""Conformance: the output fields of MQMD, MQGMO, MQPMO and MQOD, byte for byte as IBM MQ
fills them (character fields blank padded, not NUL padded; resolved names; counts)."""
from __future__ import annotations

import ibmmq
import pytest
from ibmmq import CMQC

IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT
BLANK48 = b" " * 48


def nowait(**fields) -> ibmmq.GMO:
    return ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT, **fields)


def name48(name: str) -> bytes:
    return name.encode().ljust(48, b" ")


@pytest.fixture
def queue_name(make_queue) -> str:
    return make_queue()


@pytest.fixture
def queue(conn, queue_name):
    handle = ibmmq.Queue(conn, queue_name, IN_OUT)
    yield handle
    handle.close()


# --- MQMD ------------------------------------------------------------------------------

def test_character_fields_of_a_got_md_are_blank_padded(qm, queue):
    queue.put(b"x")  # ibmmq's default MD: every character field NUL padded
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.Format == CMQC.MQFMT_NONE == b" " * 8
    assert md.ReplyToQ == BLANK48
    assert md.ApplIdentityData == b" " * 32
    assert md.ApplOriginData == b" " * 4
    assert len(md.UserIdentifier) == 12 and b"\0" not in md.UserIdentifier
    assert len(md.PutApplName) == 28 and b"\0" not in md.PutApplName
    assert md.PutDate.isdigit() and len(md.PutDate) == 8
    assert md.PutTime.isdigit() and len(md.PutTime) == 8
    # binary fields keep their bytes
    # (default context: MQ's Unix token, its type in the last byte; see test_identity.py)
    assert md.AccountingToken[-1:] == CMQC.MQACTT_UNIX_NUMERIC_ID
    assert md.CorrelId == CMQC.MQCI_NONE and md.GroupId == CMQC.MQGI_NONE


def test_short_values_are_padded_with_blanks_up_to_the_field_length(queue):
    queue.put(b"x", ibmmq.MD(Format=b"MQSTR", ReplyToQ=b"REPLY.Q"))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.Format == CMQC.MQFMT_STRING
    assert md.ReplyToQ == name48("REPLY.Q")


def test_a_nul_ends_the_value_and_what_follows_becomes_blanks(queue):
    queue.put(b"x", ibmmq.MD(ReplyToQ=b"REPLY\0garbage"))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.ReplyToQ == name48("REPLY")


def test_blank_reply_to_qmgr_becomes_the_queue_manager_name(qm, queue):
    put_md = ibmmq.MD(ReplyToQ=b"REPLY.Q")
    queue.put(b"x", put_md)
    assert put_md.ReplyToQMgr == name48(qm.name)
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert (md.ReplyToQ, md.ReplyToQMgr) == (name48("REPLY.Q"), name48(qm.name))


def test_reply_to_qmgr_is_filled_even_without_a_reply_to_queue(qm, queue):
    """As amqsbcg shows for a message amqsput put: ReplyToQ blank, ReplyToQMgr the qmgr."""
    queue.put(b"x")
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert (md.ReplyToQ, md.ReplyToQMgr) == (BLANK48, name48(qm.name))


def test_a_given_reply_to_qmgr_is_kept(queue):
    queue.put(b"x", ibmmq.MD(ReplyToQ=b"R", ReplyToQMgr=b"OTHER.QM"))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.ReplyToQMgr == name48("OTHER.QM")


def test_put1_returns_the_md_as_put(qm, conn, queue_name):
    md = ibmmq.MD(ReplyToQ=b"REPLY.Q")
    conn.put1(queue_name, b"x", md)
    assert md.ReplyToQMgr == name48(qm.name)
    assert md.MsgId != CMQC.MQMI_NONE
    assert md.PutApplType == CMQC.MQAT_UNIX and md.ApplIdentityData == b" " * 32


def test_no_context_leaves_every_context_field_blank(queue):
    queue.put(b"x", ibmmq.MD(UserIdentifier=b"u"), ibmmq.PMO(Options=CMQC.MQPMO_NO_CONTEXT))
    md = ibmmq.MD()
    queue.get(None, md, nowait())
    assert md.UserIdentifier == b" " * 12
    assert md.ApplIdentityData == b" " * 32 and md.ApplOriginData == b" " * 4
    assert (md.PutApplName, md.PutDate, md.PutTime) == (b" " * 28, b" " * 8, b" " * 8)
    assert md.PutApplType == CMQC.MQAT_NO_CONTEXT
    assert md.AccountingToken == CMQC.MQACT_NONE


def test_set_all_context_values_come_back_blank_padded(conn, queue_name):
    setter = ibmmq.Queue(conn, queue_name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    setter.put(b"x", ibmmq.MD(UserIdentifier=b"alice", ApplIdentityData=b"ident",
                              PutApplName=b"app", PutDate=b"20240101", PutTime=b"12000000",
                              ApplOriginData=b"or"),
               ibmmq.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    setter.close()
    reader = ibmmq.Queue(conn, queue_name, CMQC.MQOO_INPUT_SHARED)
    md = ibmmq.MD()
    reader.get(None, md, nowait())
    reader.close()
    assert md.UserIdentifier == b"alice".ljust(12)
    assert md.ApplIdentityData == b"ident".ljust(32)
    assert md.PutApplName == b"app".ljust(28)
    assert (md.PutDate, md.PutTime, md.ApplOriginData) == (b"20240101", b"12000000", b"or  ")


# --- MQGMO -----------------------------------------------------------------------------

def test_gmo_outputs_after_a_get(queue, queue_name):
    queue.put(b"hello")
    gmo = nowait(Version=CMQC.MQGMO_VERSION_4)
    queue.get(None, ibmmq.MD(), gmo)
    assert gmo.ResolvedQName == name48(queue_name)
    assert gmo.ReturnedLength == 5
    assert gmo.GroupStatus == CMQC.MQGS_NOT_IN_GROUP
    assert gmo.SegmentStatus == CMQC.MQSS_NOT_A_SEGMENT
    assert gmo.Segmentation == CMQC.MQSEG_INHIBITED
    assert gmo.MsgToken != CMQC.MQMTOK_NONE


def test_returned_length_is_the_length_returned_when_truncated(queue):
    queue.put(b"0123456789")
    gmo = ibmmq.GMO(Version=CMQC.MQGMO_VERSION_3,
                    Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with pytest.raises(ibmmq.MQMIError) as exc:
        queue.get(4, ibmmq.MD(), gmo)
    assert exc.value.reason == CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    assert gmo.ReturnedLength == 4


def test_fields_past_the_gmo_version_are_left_alone(queue):
    queue.put(b"hello")
    gmo = nowait(Version=CMQC.MQGMO_VERSION_2)
    queue.get(None, ibmmq.MD(), gmo)
    assert gmo.ReturnedLength == CMQC.MQRL_UNDEFINED  # a version-3 field
    assert gmo.MsgToken == CMQC.MQMTOK_NONE


def test_gmo_resolved_name_is_the_base_queue_of_an_alias(qm, conn, queue_name):
    alias = f"{queue_name}.ALIAS"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({queue_name})")
    handle = ibmmq.Queue(conn, alias, IN_OUT)
    handle.put(b"x")
    gmo = nowait()
    handle.get(None, ibmmq.MD(), gmo)
    handle.close()
    assert gmo.ResolvedQName == name48(queue_name)


# --- MQPMO -----------------------------------------------------------------------------

def test_pmo_outputs_after_a_put(qm, queue, queue_name):
    pmo = ibmmq.PMO()
    queue.put(b"x", ibmmq.MD(), pmo)
    assert (pmo.ResolvedQName, pmo.ResolvedQMgrName) == (name48(queue_name), name48(qm.name))
    assert (pmo.KnownDestCount, pmo.UnknownDestCount, pmo.InvalidDestCount) == (1, 0, 0)


def test_pmo_resolves_an_alias_to_its_base_queue_on_put_and_put1(qm, conn, queue_name):
    alias = f"{queue_name}.ALIAS"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({queue_name})")
    handle = ibmmq.Queue(conn, alias, CMQC.MQOO_OUTPUT)
    pmo = ibmmq.PMO()
    handle.put(b"x", ibmmq.MD(), pmo)
    handle.close()
    assert pmo.ResolvedQName == name48(queue_name)
    pmo1 = ibmmq.PMO()
    conn.put1(alias, b"y", ibmmq.MD(), pmo1)
    assert (pmo1.ResolvedQName, pmo1.ResolvedQMgrName) == (name48(queue_name), name48(qm.name))
    assert pmo1.KnownDestCount == 1


def test_a_failed_put_leaves_the_pmo_alone(qm, conn, make_queue):
    name = make_queue("PUT(DISABLED)")
    handle = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    pmo = ibmmq.PMO()
    with pytest.raises(ibmmq.MQMIError):
        handle.put(b"x", ibmmq.MD(), pmo)
    handle.close()
    assert pmo.KnownDestCount == 0 and pmo.ResolvedQName.strip(b"\0") == b""


# --- MQOD ------------------------------------------------------------------------------

def test_od_resolves_a_queue_opened_to_put_or_get(qm, conn, queue_name):
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectName=queue_name.encode())
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_INPUT_SHARED)
    handle.close()
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (name48(queue_name), name48(qm.name))
    assert (od.KnownDestCount, od.UnknownDestCount, od.InvalidDestCount) == (1, 0, 0)
    assert od.ResolvedType == CMQC.MQOT_Q


def test_od_names_stay_blank_for_an_inquire_only_open(conn, queue_name):
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_3, ObjectName=queue_name.encode())
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_INQUIRE)
    handle.close()
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (BLANK48, BLANK48)


def test_od_resolves_an_alias_to_its_base_queue(qm, conn, queue_name):
    alias = f"{queue_name}.ALIAS"
    qm.run_mqsc(f"DEFINE QALIAS({alias}) TARGET({queue_name})")
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_3, ObjectName=alias.encode())
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    handle.close()
    assert od.ResolvedQName == name48(queue_name)
    assert od.ObjectName.rstrip(b"\0 ") == alias.encode()  # an input field: left as given


def test_od_fields_past_its_version_are_left_alone(conn, queue_name):
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_1, ObjectName=queue_name.encode())
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT)
    handle.close()
    assert od.ResolvedQName.strip(b"\0") == b"" and od.KnownDestCount == 0


def test_od_of_the_queue_manager_object(conn):
    od = ibmmq.OD(Version=CMQC.MQOD_VERSION_4, ObjectType=CMQC.MQOT_Q_MGR)
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_INQUIRE)
    handle.close()
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (BLANK48, BLANK48)
    assert od.ResolvedType == CMQC.MQOT_NONE
