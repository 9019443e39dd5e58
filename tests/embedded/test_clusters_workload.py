"""Conformance: IBM MQ's cluster workload management algorithm and the bind options.

First the algorithm alone (server/clusters/workload.py, table-driven: one row per rule of
IBM's "The cluster workload management algorithm"), then through real embedded queue
managers: two full repositories (FR1, FR2) and a partial one (PR), as IBM's "Setting up a
new cluster" joins them, an application on FR1 putting to queues hosted on FR2 and PR
through IBM's `ibmmq` API. IBM's pages: "The cluster workload management algorithm",
"Cluster workload balancing - queue / channel / queue manager attributes", MQOPEN's
MQOO_BIND_ON_OPEN, MQOO_BIND_NOT_FIXED, MQOO_BIND_ON_GROUP and MQOO_BIND_AS_Q_DEF, and
"Handling message affinities"."""
from __future__ import annotations

import re
from collections import Counter

import ibmmq
import pytest
from ibmmq import CMQC

from channel_topology import (
    cluster_senders_ready,
    connect,
    depth,
    receive,
    wait_for,
)
from cluster_topology import shop, waiting_for_channel
from spark_mq.embedded import EmbeddedQueueManagerError
from spark_mq.embedded.server.clusters.workload import History, Instance, choose

CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"


# --- the algorithm alone ----------------------------------------------------------------------

def _remote(qmgr: str, **attrs: object) -> Instance:
    return Instance(qmgr, f"SHOP.{qmgr}", **attrs)  # type: ignore[arg-type]


def _local(**attrs: object) -> Instance:
    return Instance("HERE", local=True, **attrs)  # type: ignore[arg-type]


# (what the row shows, the candidates, the queue manager's CLWLUSEQ, the one chosen)
RULES = [
    ("no instance: nothing", [], "LOCAL", None),
    ("channel rank first, before channel status",
     [_remote("A"), _remote("B", channel_rank=3, channel_status="STOPPED")], "LOCAL", "B"),
    ("then queue rank", [_remote("A", queue_rank=2), _remote("B")], "LOCAL", "A"),
    ("channel rank outranks queue rank",
     [_remote("A", queue_rank=9), _remote("B", channel_rank=1)], "LOCAL", "B"),
    ("put-inhibited instances go while one is not",
     [_remote("A", put_enabled=False), _remote("B")], "LOCAL", "B"),
    ("only put-inhibited ones: one of them (the caller answers 2268)",
     [_remote("A", put_enabled=False), _remote("B", put_enabled=False)], "LOCAL", "A"),
    ("CLWLUSEQ(LOCAL): the local instance",
     [_remote("A", channel_priority=1), _local(use_queue="LOCAL")], "ANY", "HERE"),
    ("CLWLUSEQ(QMGR), the queue manager's LOCAL: the local instance",
     [_remote("A", channel_priority=1), _local(use_queue="QMGR")], "LOCAL", "HERE"),
    ("CLWLUSEQ(QMGR), the queue manager's ANY: the local instance is one candidate",
     [_remote("A", channel_priority=1), _local(use_queue="QMGR")], "ANY", "A"),
    ("CLWLUSEQ(ANY): one candidate",
     [_local(use_queue="ANY"), _remote("Z", queue_priority=1)], "LOCAL", "Z"),
    ("rank beats the local instance",
     [_remote("A", channel_rank=1), _local(use_queue="LOCAL")], "LOCAL", "A"),
    ("a put-inhibited local instance gives way",
     [_remote("A"), _local(use_queue="LOCAL", put_enabled=False)], "LOCAL", "A"),
    ("resumed before suspended", [_remote("A", suspended=True), _remote("B")], "LOCAL", "B"),
    ("INACTIVE or RUNNING before RETRYING",
     [_remote("A", channel_status="RETRYING"), _remote("B", channel_status="RUNNING")],
     "LOCAL", "B"),
    ("BINDING before RETRYING",
     [_remote("A", channel_status="RETRYING"), _remote("B", channel_status="BINDING")],
     "LOCAL", "B"),
    ("RETRYING before STOPPED",
     [_remote("A", channel_status="STOPPED"), _remote("B", channel_status="RETRYING")],
     "LOCAL", "B"),
    ("the local instance needs no channel",
     [_remote("A", channel_status="RETRYING"), _local(use_queue="ANY")], "LOCAL", "HERE"),
    ("of two channels to one queue manager, the highest NETPRTY",
     [Instance("A", "SHOP.A1", net_priority=1), Instance("A", "SHOP.A2", net_priority=5)],
     "LOCAL", "SHOP.A2"),
    ("channel priority", [_remote("A"), _remote("B", channel_priority=4)], "LOCAL", "B"),
    ("queue priority", [_remote("A", queue_priority=4), _remote("B")], "LOCAL", "A"),
    ("priority after status: the reserve while the primary retries",
     [_remote("A", channel_priority=9, channel_status="RETRYING"), _remote("B")], "LOCAL", "B"),
]


@pytest.mark.parametrize("why, instances, qmgr_useq, expected", RULES,
                         ids=[row[0] for row in RULES])
def test_each_rule_of_the_algorithm(why, instances, qmgr_useq, expected):
    chosen = choose(instances, History(), qmgr_useq)
    if expected is None:
        assert chosen is None
    else:
        assert chosen is not None and expected in (chosen.qmgr, chosen.channel)


def _share(instances: list[Instance], puts: int, mruc: int = 999_999_999) -> Counter:
    history = History()
    history.notice(instances)
    got: Counter = Counter()
    for _ in range(puts):
        chosen = choose(instances, history, mruc=mruc)
        assert chosen is not None
        history.chose(chosen)
        got[chosen.qmgr] += 1
    return got


def test_the_least_recently_used_by_weight():
    # default weights: turn and turn about
    assert _share([_remote("A"), _remote("B"), _remote("C")], 9) == {"A": 3, "B": 3, "C": 3}
    # 1000/99 against 1000/33: three to one
    assert _share([_remote("A", weight=99), _remote("B", weight=33)], 12) == {"A": 9, "B": 3}
    # CLWLMRUC(1): the one channel used keeps every put
    assert _share([_remote("A"), _remote("B")], 6, mruc=1) == {"A": 6}


def test_the_sequence_factors_reset_when_a_destination_appears_or_changes():
    a, b = _remote("A"), _remote("B")
    history = History()
    history.notice([a])
    for _ in range(5):
        history.chose(a)
    history.notice([a, b])   # B is new: A's lead is forgotten, as IBM resets
    assert history.factors == {}
    history.chose(b)
    history.notice([a, b])   # nothing new: kept
    assert history.factors == {"SHOP.B": 20}
    history.notice([a, _remote("B", weight=10)])
    assert history.factors == {}


# --- through real queue managers --------------------------------------------------------------

@pytest.fixture
def cluster(tmp_path):
    with shop(tmp_path) as qms:
        yield qms


_INSTANCE = re.compile(r"QUEUE\((\S+?)\)\s.*?CLUSQMGR\((\S+?)\)", re.S)


def _host(cluster, queue: str, *definitions: tuple[str, str]) -> None:
    """Define `queue` on each (member, extra attributes) and wait until FR1 knows them all,
    with the attributes given."""
    for member, extra in definitions:
        cluster[member].run_mqsc(f"DEFINE QLOCAL({queue}) CLUSTER(SHOP) {extra} REPLACE")
    hosts = {member for member, _ in definitions}
    _wait_known(cluster["FR1"], queue, hosts)
    cluster_senders_ready(cluster["FR1"], hosts - {"FR1"})


def _wait_known(fr1, queue: str, hosts: set[str], shows: str = "") -> None:
    def known() -> bool:
        try:
            output = fr1.run_mqsc(f"DISPLAY QCLUSTER({queue}) ALL")
        except EmbeddedQueueManagerError:
            return False
        blocks = output.split("AMQ8409I")[1:]
        return ({m.group(2) for b in blocks if (m := _INSTANCE.search(b))} >= hosts
                and all(shows in block for block in blocks))
    wait_for(known, what=f"FR1 knows {queue} on {sorted(hosts)} {shows}")


def _put(conn, queue: str, count: int, options: int = 0) -> None:
    """`count` times: MQOPEN, MQPUT, MQCLOSE (each open chooses)."""
    for n in range(count):
        handle = ibmmq.Queue(conn, queue, CMQC.MQOO_OUTPUT | options)
        try:
            handle.put(b"%d" % n, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        finally:
            handle.close()


def _arrived(cluster, queue: str, total: int, hosts=("FR2", "PR")) -> dict[str, int]:
    """How many messages of `queue` each host has once `total` arrived."""
    conns = {name: connect(cluster[name]) for name in hosts}
    try:
        wait_for(lambda: sum(depth(conn, queue) for conn in conns.values()) >= total,
                 what=f"{total} messages on {queue}")
        return {name: depth(conn, queue) for name, conn in conns.items()}
    finally:
        for conn in conns.values():
            conn.disconnect()


def test_two_instances_share_the_puts_and_mqput1_chooses_too(cluster):
    _host(cluster, "FAIR", ("FR2", ""), ("PR", ""))
    conn = connect(cluster["FR1"])
    try:
        _put(conn, "FAIR", 6)
        for n in range(4):
            conn.put1("FAIR", b"put1 %d" % n, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
    finally:
        conn.disconnect()
    assert _arrived(cluster, "FAIR", 10) == {"FR2": 5, "PR": 5}


def test_rank_priority_and_weight_change_the_choice(cluster):
    fr1 = cluster["FR1"]
    _host(cluster, "RANKED", ("FR2", ""), ("PR", "CLWLRANK(1)"))
    _host(cluster, "PREFERRED", ("FR2", "CLWLPRTY(2)"), ("PR", ""))
    conn = connect(fr1)
    try:
        _put(conn, "RANKED", 4)
        _put(conn, "PREFERRED", 4)
    finally:
        conn.disconnect()
    assert _arrived(cluster, "RANKED", 4) == {"FR2": 0, "PR": 4}
    assert _arrived(cluster, "PREFERRED", 4) == {"FR2": 4, "PR": 0}
    # a weight is the cluster-receiver's: PR's 99 against FR2's 50 takes two puts in three
    cluster["PR"].run_mqsc("ALTER CHANNEL(SHOP.PR) CHLTYPE(CLUSRCVR) CLWLWGHT(99)")
    wait_for(lambda: "CLWLWGHT(99)" in fr1.run_mqsc("DISPLAY CLUSQMGR(PR) CLWLWGHT"),
             what="FR1 learns PR's weight")
    _host(cluster, "WEIGHED", ("FR2", ""), ("PR", ""))
    conn = connect(fr1)
    try:
        _put(conn, "WEIGHED", 9)
    finally:
        conn.disconnect()
    assert _arrived(cluster, "WEIGHED", 9) == {"FR2": 3, "PR": 6}


def test_a_local_instance_takes_part_only_with_clwluseq_any(cluster):
    fr1 = cluster["FR1"]
    _host(cluster, "NEARBY", ("FR1", ""), ("FR2", ""))
    # FR2's instance takes part too, but what FR2's cluster-receiver delivers stays there
    _host(cluster, "ANYWHERE", ("FR1", "CLWLUSEQ(ANY)"), ("FR2", "CLWLUSEQ(ANY)"))
    at_fr2 = connect(cluster["FR2"])
    try:   # FR2's first choice is its own instance: its next one would be FR1's
        _put(at_fr2, "ANYWHERE", 1)
    finally:
        at_fr2.disconnect()
    conn = connect(fr1)
    try:
        _put(conn, "NEARBY", 4)
        _put(conn, "ANYWHERE", 4)
    finally:
        conn.disconnect()
    assert _arrived(cluster, "NEARBY", 4, hosts=("FR1", "FR2")) == {"FR1": 4, "FR2": 0}
    assert _arrived(cluster, "ANYWHERE", 5, hosts=("FR1", "FR2")) == {"FR1": 2, "FR2": 3}


def test_every_instance_put_inhibited_answers_2268(cluster):
    _host(cluster, "CLOSED", ("FR2", "PUT(DISABLED)"), ("PR", "PUT(DISABLED)"))
    conn = connect(cluster["FR1"])
    try:
        with pytest.raises(ibmmq.MQMIError) as refused:
            ibmmq.Queue(conn, "CLOSED", CMQC.MQOO_OUTPUT)
        assert refused.value.reason == CMQC.MQRC_CLUSTER_PUT_INHIBITED
        # one instance open again: every put goes there
        cluster["PR"].run_mqsc("ALTER QLOCAL(CLOSED) PUT(ENABLED)")
        _wait_known(cluster["FR1"], "CLOSED", {"FR2", "PR"}, shows="")
        wait_for(lambda: "PUT(ENABLED)" in cluster["FR1"].run_mqsc(
            "DISPLAY QCLUSTER(CLOSED) CLUSQMGR(PR) PUT"), what="FR1 learns PR's PUT(ENABLED)")
        _put(conn, "CLOSED", 3)
    finally:
        conn.disconnect()
    assert _arrived(cluster, "CLOSED", 3) == {"FR2": 0, "PR": 3}


def _open(conn, queue: str, options: int) -> tuple[ibmmq.Queue, str]:
    """An output handle and the queue manager its open resolved to (MQOD's ResolvedQMgrName)."""
    od = ibmmq.OD(ObjectName=queue, Version=CMQC.MQOD_VERSION_4)
    handle = ibmmq.Queue(conn, od, CMQC.MQOO_OUTPUT | options)
    return handle, od.ResolvedQMgrName.decode().strip(" \0")


def test_bind_not_fixed_spreads_the_puts_of_one_handle_and_bind_on_open_keeps_them(cluster):
    _host(cluster, "SPREAD", ("FR2", ""), ("PR", ""))
    _host(cluster, "BYDEF", ("FR2", "DEFBIND(NOTFIXED)"), ("PR", "DEFBIND(NOTFIXED)"))
    conn = connect(cluster["FR1"])
    try:
        for queue, options in (("SPREAD", CMQC.MQOO_BIND_NOT_FIXED), ("SPREAD", 0),
                               ("BYDEF", 0), ("BYDEF", CMQC.MQOO_BIND_ON_OPEN)):
            handle, _ = _open(conn, queue, options)
            for n in range(4):
                handle.put(b"%d" % n, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
            handle.close()
        with pytest.raises(ibmmq.MQMIError) as both:
            ibmmq.Queue(conn, "SPREAD", CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED
                        | CMQC.MQOO_BIND_ON_OPEN)
        assert both.value.reason == CMQC.MQRC_OPTIONS_ERROR
    finally:
        conn.disconnect()
    # NOT_FIXED: 2 and 2; then ON_OPEN (the queue's DEFBIND(OPEN)): 4 on the one it chose
    spread = _arrived(cluster, "SPREAD", 8)
    assert sorted(spread.values()) == [2, 6]
    by_definition = _arrived(cluster, "BYDEF", 8)
    assert sorted(by_definition.values()) == [2, 6]


def _put_group(handle: ibmmq.Queue, bodies: list[bytes], flags: tuple[int, int]) -> None:
    """Put `bodies` in logical order, the last with flags[1], the others with flags[0]."""
    for n, body in enumerate(bodies):
        md = ibmmq.MD(Version=CMQC.MQMD_VERSION_2, Persistence=CMQC.MQPER_PERSISTENT,
                      MsgFlags=flags[1] if n == len(bodies) - 1 else flags[0])
        handle.put(body, md, ibmmq.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))


GROUP = (CMQC.MQMF_MSG_IN_GROUP, CMQC.MQMF_LAST_MSG_IN_GROUP)
SEGMENTS = (CMQC.MQMF_SEGMENT, CMQC.MQMF_LAST_SEGMENT)


def _where_each_group_went(cluster, queue: str, count: int) -> dict[bytes, set[str]]:
    """GroupId -> the hosts its messages are on."""
    found: dict[bytes, set[str]] = {}
    total = sum(_arrived(cluster, queue, count).values())
    assert total == count
    for name in ("FR2", "PR"):
        conn = connect(cluster[name])
        try:
            here = depth(conn, queue)
            for md, _ in receive(conn, queue, here):
                found.setdefault(md.GroupId, set()).add(name)
        finally:
            conn.disconnect()
    return found


def test_bind_on_group_keeps_each_group_and_each_segmented_message_on_one_instance(cluster):
    _host(cluster, "GROUPED", ("FR2", ""), ("PR", ""))
    conn = connect(cluster["FR1"])
    try:
        handle, _ = _open(conn, "GROUPED", CMQC.MQOO_BIND_ON_GROUP)
        for _ in range(2):
            _put_group(handle, [b"a", b"b", b"c"], GROUP)
            _put_group(handle, [b"x" * 10, b"y" * 10, b"z"], SEGMENTS)
        handle.close()
    finally:
        conn.disconnect()
    groups = _where_each_group_went(cluster, "GROUPED", 12)
    assert len(groups) == 4 and all(len(hosts) == 1 for hosts in groups.values())
    # a new group may move: the four went to both instances, two each
    assert Counter(next(iter(hosts)) for hosts in groups.values()) == {"FR2": 2, "PR": 2}


def test_bind_not_fixed_does_not_keep_a_group_together(cluster):
    # IBM: only MQOO_BIND_ON_GROUP (or ON_OPEN) keeps a group on one instance
    _host(cluster, "LOOSE", ("FR2", ""), ("PR", ""))
    conn = connect(cluster["FR1"])
    try:
        handle, resolved_qmgr = _open(conn, "LOOSE", CMQC.MQOO_BIND_NOT_FIXED)
        _put_group(handle, [b"a", b"b", b"c", b"d"], GROUP)
        handle.close()
    finally:
        conn.disconnect()
    assert resolved_qmgr == ""   # not fixed: no one queue manager (IBM's MQOD rule)
    assert list(_where_each_group_went(cluster, "LOOSE", 4).values()) == [{"FR2", "PR"}]




def test_a_stopped_member_is_skipped_and_its_waiting_messages_arrive_when_it_returns(cluster):
    fr1, pr = cluster["FR1"], cluster["PR"]
    _host(cluster, "ORDERS", ("FR2", ""), ("PR", ""))
    conn = connect(fr1)
    try:
        # a handle bound to PR's instance (the second open goes there: turn about)
        handles = [_open(conn, "ORDERS", CMQC.MQOO_BIND_ON_OPEN) for _ in range(2)]
        bound = next(handle for handle, host in handles if host == "PR")
        pr.stop()
        wait_for(lambda: not pr.running, what="PR reaped")
        bound.put(b"waits for PR", ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        wait_for(lambda: _status(fr1, "SHOP.PR") in ("RETRYING", "BINDING"),
                 what="FR1's SHOP.PR retries")
        _put(conn, "ORDERS", 4)   # new opens skip PR: its channel is retrying
        assert waiting_for_channel(conn, "SHOP.PR") == 1
        for handle, _ in handles:
            handle.close()
    finally:
        conn.disconnect()
    assert _arrived(cluster, "ORDERS", 4, hosts=("FR2",)) == {"FR2": 4}
    pr.start()
    at_pr = connect(pr)
    try:
        wait_for(lambda: depth(at_pr, "ORDERS") == 1, what="the waiting message reaches PR")
        assert [body for _, body in receive(at_pr, "ORDERS", 1)] == [b"waits for PR"]
    finally:
        at_pr.disconnect()


def test_not_fixed_messages_waiting_for_a_failed_channel_go_to_another_instance(cluster):
    # IBM's reallocation: only messages whose every put chose may move
    fr1, pr = cluster["FR1"], cluster["PR"]
    _host(cluster, "RETURNS", ("PR", ""))
    pr.stop()
    wait_for(lambda: not pr.running, what="PR reaped")
    conn = connect(fr1)
    try:
        loose, _ = _open(conn, "RETURNS", CMQC.MQOO_BIND_NOT_FIXED)
        fixed, host = _open(conn, "RETURNS", CMQC.MQOO_BIND_ON_OPEN)
        assert host == "PR"   # the only instance
        for handle, body in ((loose, b"may move"), (fixed, b"stays"), (loose, b"may move")):
            handle.put(body, ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT))
        wait_for(lambda: _status(fr1, "SHOP.PR") in ("RETRYING", "BINDING"),
                 what="FR1's SHOP.PR retries")
        assert waiting_for_channel(conn, "SHOP.PR") == 3   # nowhere else to go yet
        # a second instance appears: at its next retry the channel gives it what may move
        _host(cluster, "RETURNS", ("FR2", ""))
        wait_for(lambda: waiting_for_channel(conn, "SHOP.PR") == 1,
                 what="two messages reallocated")
        loose.close()
        fixed.close()
    finally:
        conn.disconnect()
    at_fr2 = connect(cluster["FR2"])
    try:
        assert [body for _, body in receive(at_fr2, "RETURNS", 2)] == [b"may move"] * 2
    finally:
        at_fr2.disconnect()
    pr.start()
    at_pr = connect(pr)
    try:
        assert [body for _, body in receive(at_pr, "RETURNS", 1)] == [b"stays"]
    finally:
        at_pr.disconnect()


def _status(qm, channel: str) -> str:
    try:
        output = qm.run_mqsc(f"DISPLAY CHSTATUS({channel}) STATUS")
    except EmbeddedQueueManagerError:
        return ""
    found = re.search(r"STATUS\((\w+)\)", output)
    return found.group(1) if found else ""
