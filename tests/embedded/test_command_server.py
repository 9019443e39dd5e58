"""Conformance: the PCF command server, through IBM's own `ibmmq.PCFExecute` (and raw MQPUTs
of PCF requests) against a real embedded queue manager process."""
from __future__ import annotations

import os

import pytest
from ibmmq import CMQC, CMQCFC, CMQXC

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
REPLY_WAIT = {"Options": CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, "WaitInterval": 5000}


def unique(prefix: str = "PCF") -> str:
    unique.counter = getattr(unique, "counter", 0) + 1
    return f"{prefix}.{os.getpid()}.{unique.counter}"


@pytest.fixture
def pcf(conn, ibmmq):
    executor = ibmmq.PCFExecute(conn, response_wait_interval=10000)
    yield executor
    executor.disconnect()


def name_of(item) -> str:
    return item[CMQC.MQCA_Q_NAME].decode().strip()


def reason_of(call, *args, **kwargs) -> int:
    import ibmmq
    with pytest.raises(ibmmq.MQMIError) as exc:
        call(*args, **kwargs)
    assert exc.value.comp == CMQC.MQCC_FAILED
    return exc.value.reason


def error_reply(ibmmq, call, args) -> tuple[dict, object]:
    """The (parameters, MQCFH) of a command's error reply, through PCFExecute's responses list."""
    responses: list = []
    with pytest.raises(ibmmq.MQMIError):
        call(args, responses=responses)
    return responses[0] if responses else ({}, None)


def inquire(conn, ibmmq, name: str, selector: int):
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_INQUIRE)
    try:
        return queue.inquire(selector)
    finally:
        queue.close()


# === inquiries ================================================================================
def test_ping_answers_with_no_data(pcf):
    assert pcf.MQCMD_PING_Q_MGR() == []


def test_generic_inquire_answers_every_matching_queue_with_name_and_type(qm, pcf):
    prefix = unique("GEN")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.B)\nDEFINE QLOCAL({prefix}.A)\n"
                f"DEFINE QALIAS({prefix}.C) TARGET({prefix}.A)")
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode()})
    assert [name_of(item) for item in found] == [f"{prefix}.A", f"{prefix}.B", f"{prefix}.C"]
    assert [item[CMQC.MQIA_Q_TYPE] for item in found] == [CMQC.MQQT_LOCAL, CMQC.MQQT_LOCAL,
                                                          CMQC.MQQT_ALIAS]
    # names come back blank-padded to 48 characters, as MQ returns them
    assert len(found[0][CMQC.MQCA_Q_NAME]) == CMQC.MQ_Q_NAME_LENGTH
    # no attribute list: every attribute of the type
    assert found[0][CMQC.MQIA_CURRENT_Q_DEPTH] == 0
    assert found[2][CMQC.MQCA_BASE_Q_NAME].strip() == f"{prefix}.A".encode()
    assert CMQC.MQIA_CURRENT_Q_DEPTH not in found[2]


def test_inquire_by_name_returns_the_attributes_asked_for(make_queue, pcf, conn):
    name = make_queue("MAXMSGL(4242) DESCR('pcf queue') DEFPSIST(YES)")
    conn.put1(name, b"one")
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: name.encode(),
                                 CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQIA_MAX_MSG_LENGTH, CMQC.MQCA_Q_DESC,
                                                         CMQC.MQIA_CURRENT_Q_DEPTH,
                                                         CMQC.MQIA_DEF_PERSISTENCE]})
    assert len(found) == 1
    assert set(found[0]) == {CMQC.MQCA_Q_NAME, CMQC.MQIA_Q_TYPE, CMQC.MQIA_MAX_MSG_LENGTH,
                             CMQC.MQCA_Q_DESC, CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_DEF_PERSISTENCE}
    assert found[0][CMQC.MQIA_MAX_MSG_LENGTH] == 4242
    assert found[0][CMQC.MQCA_Q_DESC].strip() == b"pcf queue"
    assert found[0][CMQC.MQIA_CURRENT_Q_DEPTH] == 1
    assert found[0][CMQC.MQIA_DEF_PERSISTENCE] == CMQC.MQPER_PERSISTENT


def test_queue_type_selects_queues(qm, pcf):
    prefix = unique("TYPE")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.L)\nDEFINE QALIAS({prefix}.A) TARGET({prefix}.L)\n"
                f"DEFINE QMODEL({prefix}.M)")
    aliases = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode(),
                                   CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS})
    models = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode(),
                                  CMQC.MQIA_Q_TYPE: CMQC.MQQT_MODEL})
    assert [name_of(item) for item in aliases] == [f"{prefix}.A"]
    assert [name_of(item) for item in models] == [f"{prefix}.M"]
    assert models[0][CMQC.MQIA_DEFINITION_TYPE] == CMQC.MQQDT_TEMPORARY_DYNAMIC


def test_unknown_queue_is_unknown_object_name(pcf):
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"NO.SUCH.QUEUE"}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: b"NO.SUCH.PREFIX.*"}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_integer_filter_keeps_only_matching_queues(ibmmq, qm, pcf, conn):
    prefix = unique("FILT")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.EMPTY)\nDEFINE QLOCAL({prefix}.FULL)")
    conn.put1(f"{prefix}.FULL", b"x")
    depth = ibmmq.Filter(CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode(),
                                 CMQCFC.MQIACF_Q_ATTRS: [CMQC.MQCA_Q_DESC]}, [depth])
    assert [name_of(item) for item in found] == [f"{prefix}.FULL"]
    assert found[0][CMQC.MQIA_CURRENT_Q_DEPTH] == 1  # the filtered attribute comes back


def test_string_filter_with_a_generic_value(ibmmq, qm, pcf):
    prefix = unique("SFILT")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.1) DESCR('IBM MQ style')\n"
                f"DEFINE QLOCAL({prefix}.2) DESCR('other')")
    like = ibmmq.Filter(CMQC.MQCA_Q_DESC).like(b"IBM MQ *")
    found = pcf.MQCMD_INQUIRE_Q({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode()}, [like])
    assert [name_of(item) for item in found] == [f"{prefix}.1"]


def test_inquire_queue_names_lists_names_and_types(qm, pcf):
    prefix = unique("NAMES")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.X)\nDEFINE QMODEL({prefix}.Y)")
    found = pcf.MQCMD_INQUIRE_Q_NAMES({CMQC.MQCA_Q_NAME: f"{prefix}.*".encode()})
    assert [n.strip() for n in found[0][CMQCFC.MQCACF_Q_NAMES]] == [f"{prefix}.X".encode(),
                                                                    f"{prefix}.Y".encode()]
    assert found[0][CMQCFC.MQIACF_Q_TYPES] == [CMQC.MQQT_LOCAL, CMQC.MQQT_MODEL]


def test_queue_status_shows_depth_open_handles_and_uncommitted(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    conn.put1(name, b"committed")
    reader = ibmmq.Queue(conn, name, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    try:
        reader.put(b"uncommitted", ibmmq.MD(), ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        status = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: name.encode()})
        handles = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: name.encode(),
                                              CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE})
    finally:
        conn.backout()
        reader.close()
    assert len(status) == 1
    assert status[0][CMQCFC.MQIACF_Q_STATUS_TYPE] == CMQCFC.MQIACF_Q_STATUS
    assert status[0][CMQC.MQIA_CURRENT_Q_DEPTH] == 2  # CURDEPTH counts uncommitted puts
    assert status[0][CMQC.MQIA_OPEN_INPUT_COUNT] == 1
    assert status[0][CMQC.MQIA_OPEN_OUTPUT_COUNT] == 1
    assert status[0][CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 1
    assert status[0][CMQCFC.MQCACF_LAST_PUT_DATE].strip() == b""  # blank: queue monitoring off
    assert len(handles) == 1
    assert handles[0][CMQCFC.MQIACF_OPEN_INPUT_TYPE] == CMQCFC.MQQSO_SHARED
    assert handles[0][CMQCFC.MQIACF_OPEN_OUTPUT] == CMQCFC.MQQSO_YES
    assert handles[0][CMQCFC.MQIACF_OPEN_BROWSE] == CMQCFC.MQQSO_NO


def test_command_queue_is_open_for_input_by_the_command_server(pcf):
    status = pcf.MQCMD_INQUIRE_Q_STATUS({CMQC.MQCA_Q_NAME: COMMAND_QUEUE.encode()})
    assert status[0][CMQC.MQIA_OPEN_INPUT_COUNT] == 1


def test_inquire_queue_manager(qm, pcf):
    everything = pcf.MQCMD_INQUIRE_Q_MGR()
    assert len(everything) == 1
    assert everything[0][CMQC.MQCA_Q_MGR_NAME].strip() == qm.name.encode()
    assert everything[0][CMQC.MQIA_COMMAND_LEVEL] >= 800
    assert everything[0][CMQC.MQCA_COMMAND_INPUT_Q_NAME].strip() == COMMAND_QUEUE.encode()
    chosen = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQIA_MAX_MSG_LENGTH]})
    assert set(chosen[0]) == {CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_MAX_MSG_LENGTH}


def test_change_queue_manager_is_seen_by_mqinq(ibmmq, pcf, conn):
    before = pcf.MQCMD_INQUIRE_Q_MGR({CMQCFC.MQIACF_Q_MGR_ATTRS: [CMQC.MQCA_Q_MGR_DESC]})
    pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_Q_MGR_DESC: b"changed by PCF"})
    try:
        assert conn.inquire(CMQC.MQCA_Q_MGR_DESC).strip() == b"changed by PCF"
    finally:
        pcf.MQCMD_CHANGE_Q_MGR({CMQC.MQCA_Q_MGR_DESC: before[0][CMQC.MQCA_Q_MGR_DESC].strip()})
    assert reason_of(pcf.MQCMD_CHANGE_Q_MGR, {CMQC.MQIA_MAX_UNCOMMITTED_MSGS: 0}) \
        == CMQCFC.MQRCCF_PARM_VALUE_ERROR


def test_server_connection_channels(pcf):
    found = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.*"})
    names = [item[CMQCFC.MQCACH_CHANNEL_NAME].strip() for item in found]
    assert names == [b"DEV.ADMIN.SVRCONN", b"DEV.APP.SVRCONN"]
    assert {item[CMQCFC.MQIACH_CHANNEL_TYPE] for item in found} == {CMQXC.MQCHT_SVRCONN}
    listed = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({CMQCFC.MQCACH_CHANNEL_NAME: b"DEV.*"})
    assert [n.strip() for n in listed[0][CMQCFC.MQCACH_CHANNEL_NAMES]] == names
    assert reason_of(pcf.MQCMD_INQUIRE_CHANNEL, {CMQCFC.MQCACH_CHANNEL_NAME: b"NO.SUCH.CHL"}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_create_change_and_delete_a_server_connection_channel(pcf):
    name = f"PCF.CHL.{os.getpid() % 100000}".encode()
    pcf.MQCMD_CREATE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name,
                              CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                              CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    pcf.MQCMD_CHANGE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name,
                              CMQCFC.MQIACH_CHANNEL_TYPE: CMQXC.MQCHT_SVRCONN,
                              CMQCFC.MQCACH_DESC: b"made by PCF"})
    found = pcf.MQCMD_INQUIRE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name})
    assert found[0][CMQCFC.MQCACH_DESC].strip() == b"made by PCF"
    pcf.MQCMD_DELETE_CHANNEL({CMQCFC.MQCACH_CHANNEL_NAME: name})
    assert reason_of(pcf.MQCMD_INQUIRE_CHANNEL, {CMQCFC.MQCACH_CHANNEL_NAME: name}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_connections_carry_their_application_tags(ibmmq, pcf):
    found = pcf.MQCMD_INQUIRE_CONNECTION({CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b"")})
    tags = {item[CMQCFC.MQCACF_APPL_TAG].strip(): item[CMQC.MQIA_APPL_TYPE] for item in found}
    assert tags[b"amqpcsea"] == CMQC.MQAT_QMGR  # the command server itself
    assert CMQC.MQAT_USER in tags.values()     # this test's own connection
    users = pcf.MQCMD_INQUIRE_CONNECTION(
        {CMQCFC.MQBACF_GENERIC_CONNECTION_ID: ibmmq.ByteString(b"")},
        [ibmmq.Filter(CMQC.MQIA_APPL_TYPE).equal(CMQC.MQAT_USER)])
    assert users and all(item[CMQC.MQIA_APPL_TYPE] == CMQC.MQAT_USER for item in users)


# === changes ==================================================================================
def test_create_queue_is_visible_through_mqinq(ibmmq, pcf, conn):
    name = unique()
    pcf.MQCMD_CREATE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_MAX_Q_DEPTH: 77, CMQC.MQCA_Q_DESC: b"Mixed Case"})
    assert inquire(conn, ibmmq, name, CMQC.MQIA_MAX_Q_DEPTH) == 77
    assert inquire(conn, ibmmq, name, CMQC.MQCA_Q_DESC).strip() == b"Mixed Case"  # not folded


def test_create_existing_queue_needs_replace(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    create = {CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
              CMQC.MQIA_MAX_Q_DEPTH: 6}
    assert reason_of(pcf.MQCMD_CREATE_Q, create) == CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS
    pcf.MQCMD_CREATE_Q({**create, CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES})
    assert inquire(conn, ibmmq, name, CMQC.MQIA_MAX_Q_DEPTH) == 6
    assert reason_of(pcf.MQCMD_CREATE_Q, {CMQC.MQCA_Q_NAME: name.encode(),
                                          CMQC.MQIA_Q_TYPE: CMQC.MQQT_MODEL,
                                          CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES}) \
        == CMQCFC.MQRCCF_OBJECT_WRONG_TYPE


def test_bad_attribute_value_names_the_parameter(ibmmq, pcf):
    params, header = error_reply(ibmmq, pcf.MQCMD_CREATE_Q, {
        CMQC.MQCA_Q_NAME: unique().encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
        CMQC.MQIA_DEF_PRIORITY: 12})
    assert header.Reason == CMQCFC.MQRCCF_PARM_VALUE_ERROR
    assert params[CMQCFC.MQIACF_PARAMETER_ID] == CMQC.MQIA_DEF_PRIORITY


def test_change_queue(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    pcf.MQCMD_CHANGE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL,
                        CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED})
    assert inquire(conn, ibmmq, name, CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_INHIBITED
    assert reason_of(pcf.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: name.encode(),
                                          CMQC.MQIA_Q_TYPE: CMQC.MQQT_ALIAS}) \
        == CMQCFC.MQRCCF_OBJECT_WRONG_TYPE
    assert reason_of(pcf.MQCMD_CHANGE_Q, {CMQC.MQCA_Q_NAME: b"NO.SUCH.QUEUE",
                                          CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_copy_queue_takes_the_source_attributes_and_the_given_ones(ibmmq, make_queue, pcf, conn):
    source = make_queue("MAXMSGL(1000) DESCR('source')")
    target = unique("COPY")
    pcf.MQCMD_COPY_Q({CMQCFC.MQCACF_FROM_Q_NAME: source.encode(),
                      CMQCFC.MQCACF_TO_Q_NAME: target.encode(),
                      CMQC.MQIA_Q_TYPE: CMQC.MQQT_LOCAL, CMQC.MQCA_Q_DESC: b"copy"})
    assert inquire(conn, ibmmq, target, CMQC.MQIA_MAX_MSG_LENGTH) == 1000
    assert inquire(conn, ibmmq, target, CMQC.MQCA_Q_DESC).strip() == b"copy"


def test_delete_queue_needs_purge_when_not_empty(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    conn.put1(name, b"x")
    assert reason_of(pcf.MQCMD_DELETE_Q, {CMQC.MQCA_Q_NAME: name.encode()}) == CMQC.MQRC_Q_NOT_EMPTY
    pcf.MQCMD_DELETE_Q({CMQC.MQCA_Q_NAME: name.encode(), CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {CMQC.MQCA_Q_NAME: name.encode()}) \
        == CMQC.MQRC_UNKNOWN_OBJECT_NAME


def test_open_queue_cannot_be_deleted_or_cleared(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    queue = ibmmq.Queue(conn, name, CMQC.MQOO_OUTPUT)
    try:
        assert reason_of(pcf.MQCMD_DELETE_Q, {CMQC.MQCA_Q_NAME: name.encode()}) \
            == CMQCFC.MQRCCF_OBJECT_OPEN
        assert reason_of(pcf.MQCMD_CLEAR_Q, {CMQC.MQCA_Q_NAME: name.encode()}) \
            == CMQCFC.MQRCCF_OBJECT_OPEN
    finally:
        queue.close()


def test_clear_queue_empties_it(ibmmq, make_queue, pcf, conn):
    name = make_queue()
    for _ in range(3):
        conn.put1(name, b"x")
    pcf.MQCMD_CLEAR_Q({CMQC.MQCA_Q_NAME: name.encode()})
    assert inquire(conn, ibmmq, name, CMQC.MQIA_CURRENT_Q_DEPTH) == 0


def test_authority_records_are_kept(ibmmq, pcf):
    profile = unique("AUTH").encode()
    pcf.MQCMD_SET_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile,
                            CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q,
                            CMQCFC.MQIACF_AUTH_ADD_AUTHS: [CMQCFC.MQAUTH_BROWSE, CMQCFC.MQAUTH_INQUIRE],
                            CMQCFC.MQCACF_PRINCIPAL_ENTITY_NAMES: [b"app"]})
    query = {CMQCFC.MQIACF_AUTH_OPTIONS: CMQCFC.MQAUTHOPT_NAME_EXPLICIT,
             CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile}
    found = pcf.MQCMD_INQUIRE_AUTH_RECS(query)
    assert len(found) == 1
    assert found[0][CMQCFC.MQCACF_ENTITY_NAME].strip() == b"app"
    assert sorted(found[0][CMQCFC.MQIACF_AUTHORIZATION_LIST]) == [CMQCFC.MQAUTH_BROWSE,
                                                                  CMQCFC.MQAUTH_INQUIRE]
    pcf.MQCMD_DELETE_AUTH_REC({CMQCFC.MQCACF_AUTH_PROFILE_NAME: profile,
                               CMQCFC.MQIACF_OBJECT_TYPE: CMQC.MQOT_Q})
    assert reason_of(pcf.MQCMD_INQUIRE_AUTH_RECS, query) == CMQC.MQRC_UNKNOWN_OBJECT_NAME


# === errors ===================================================================================
def test_a_command_the_embedded_queue_manager_lacks_fails(pcf):
    assert reason_of(pcf.MQCMD_INQUIRE_SERVICE, {CMQC.MQCA_SERVICE_NAME: b"*"}) \
        == CMQCFC.MQRCCF_COMMAND_FAILED


def test_missing_required_parameters(ibmmq, pcf, make_queue):
    assert reason_of(pcf.MQCMD_INQUIRE_Q, {}) == CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL
    params, header = error_reply(ibmmq, pcf.MQCMD_CHANGE_Q, {
        CMQC.MQCA_Q_NAME: make_queue().encode(), CMQC.MQIA_MAX_Q_DEPTH: 3})
    assert header.Reason == CMQCFC.MQRCCF_PARM_MISSING
    assert params[CMQCFC.MQIACF_PARAMETER_ID] == CMQC.MQIA_Q_TYPE


def test_a_parameter_the_command_does_not_take(ibmmq, pcf):
    params, header = error_reply(ibmmq, pcf.MQCMD_INQUIRE_Q, {
        CMQC.MQCA_Q_NAME: b"*", CMQCFC.MQIACF_PURGE: CMQCFC.MQPO_YES})
    assert header.CompCode == CMQC.MQCC_FAILED
    assert header.Reason == CMQCFC.MQRCCF_CFIN_PARM_ID_ERROR
    assert params[CMQCFC.MQIACF_PARAMETER_ID] == CMQCFC.MQIACF_PURGE


# === the reply messages themselves ============================================================
def _request(ibmmq, command: int, *parameters) -> bytes:
    header = ibmmq.CFH(Type=CMQCFC.MQCFT_COMMAND, Command=command, ParameterCount=len(parameters))
    return header.pack() + b"".join(p.pack() for p in parameters)


def _put_request(ibmmq, conn, body: bytes, reply_to: str, **md_fields):
    fields = {"Format": CMQC.MQFMT_ADMIN, "MsgType": CMQC.MQMT_REQUEST,
              "ReplyToQ": reply_to.encode(), **md_fields}
    md = ibmmq.MD(**fields)
    conn.put1(COMMAND_QUEUE, body, md)
    return md


def _get_reply(ibmmq, conn, queue_name: str, correl_id: bytes):
    queue = ibmmq.Queue(conn, queue_name, CMQC.MQOO_INPUT_SHARED)
    try:
        md = ibmmq.MD(CorrelId=correl_id)
        gmo = ibmmq.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID, Version=CMQC.MQGMO_VERSION_2,
                        **REPLY_WAIT)
        body = queue.get(None, md, gmo)
    finally:
        queue.close()
    header = ibmmq.CFH()
    header.unpack(body[:CMQCFC.MQCFH_STRUC_LENGTH])
    params = ibmmq.PCFExecute.unpack(body)[0] if header.CompCode == CMQC.MQCC_OK else None
    return md, (params, header)


def test_reply_descriptor_correlates_with_the_request(ibmmq, make_queue, conn):
    reply_queue = make_queue()
    request = _put_request(ibmmq, conn, _request(ibmmq, CMQCFC.MQCMD_PING_Q_MGR), reply_queue)
    md, (params, header) = _get_reply(ibmmq, conn, reply_queue, request.MsgId)
    assert md.CorrelId == request.MsgId
    assert md.MsgId != request.MsgId
    assert md.Format == CMQC.MQFMT_ADMIN
    assert md.MsgType == CMQC.MQMT_REPLY
    assert md.Feedback == CMQC.MQFB_NONE
    assert (header.Type, header.Command, header.Control) == (
        CMQCFC.MQCFT_RESPONSE, CMQCFC.MQCMD_PING_Q_MGR, CMQCFC.MQCFC_LAST)
    assert (header.CompCode, header.Reason, header.MsgSeqNumber) == (CMQC.MQCC_OK, 0, 1)


def test_pass_correl_id_keeps_the_request_correl_id(ibmmq, make_queue, conn):
    reply_queue = make_queue()
    correl_id = b"my correlation id".ljust(24, b"\0")
    request = _put_request(ibmmq, conn, _request(ibmmq, CMQCFC.MQCMD_PING_Q_MGR), reply_queue,
                           CorrelId=correl_id, Report=CMQC.MQRO_PASS_CORREL_ID)
    md, _ = _get_reply(ibmmq, conn, reply_queue, correl_id)
    assert md.CorrelId == correl_id != request.MsgId


def test_one_reply_per_object_the_last_marked_last(ibmmq, qm, make_queue, conn):
    prefix = unique("MULTI")
    qm.run_mqsc(f"DEFINE QLOCAL({prefix}.1)\nDEFINE QLOCAL({prefix}.2)")
    reply_queue = make_queue()
    body = _request(ibmmq, CMQCFC.MQCMD_INQUIRE_Q,
                    ibmmq.CFST(Parameter=CMQC.MQCA_Q_NAME, String=f"{prefix}.*".encode()))
    request = _put_request(ibmmq, conn, body, reply_queue)
    first = _get_reply(ibmmq, conn, reply_queue, request.MsgId)[1][1]
    second = _get_reply(ibmmq, conn, reply_queue, request.MsgId)[1][1]
    assert (first.MsgSeqNumber, first.Control) == (1, CMQCFC.MQCFC_NOT_LAST)
    assert (second.MsgSeqNumber, second.Control) == (2, CMQCFC.MQCFC_LAST)


def test_unknown_command_number_is_a_header_command_error(ibmmq, make_queue, conn):
    reply_queue = make_queue()
    request = _put_request(ibmmq, conn, _request(ibmmq, 99999), reply_queue)
    _, (_, header) = _get_reply(ibmmq, conn, reply_queue, request.MsgId)
    assert (header.CompCode, header.Reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_CFH_COMMAND_ERROR)


def test_a_request_not_in_admin_format_is_refused(ibmmq, make_queue, conn):
    reply_queue = make_queue()
    request = _put_request(ibmmq, conn, _request(ibmmq, CMQCFC.MQCMD_PING_Q_MGR), reply_queue,
                           Format=CMQC.MQFMT_STRING)
    _, (_, header) = _get_reply(ibmmq, conn, reply_queue, request.MsgId)
    assert (header.CompCode, header.Reason) == (CMQC.MQCC_FAILED, CMQCFC.MQRCCF_MD_FORMAT_ERROR)
