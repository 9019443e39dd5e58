"""The cluster attributes of queues, channels and the queue manager, and what IBM MQ refuses
in them (runs in the queue-manager process, under its lock).

IBM's pages: "Cluster queues" (queclus.html), "Cluster channels" (chlclus.html), "Queue
manager attributes for clusters" (qmclus.html), and the PCF reason codes' pages (3090 q046870_, 3269 q047850_,
3363 q048180_; 3088 and 3089 under their names).

MQSC (verbs/definitions.py for queues and ALTER QMGR, admin/mqsc_apply.py for channels)
and PCF (the command server, which applies the same MQSC) both come here after the
attributes are typed, so both refuse the same definitions: runmqsc shows the text, PCF
answers `ClusterRefused.pcf_reason`.

- A queue or a cluster channel names its clusters in CLUSTER or in CLUSNL (a namelist),
  never both (3088); the queue manager is a full repository for REPOS or for the clusters of
  REPOSNL, never both (3089). A blank value is "not set", as `dmpmqcfg` writes CLUSNL(' ').
- A cluster queue is never a transmission queue, and the queues clustering and channels run
  on may not be clustered (3090: IBM's list, `NOT_CLUSTERABLE`).
- CLCHNAME (the cluster-sender channels whose messages a queue carries) only on a
  transmission queue (3363).
- DEFXMITQ may not be SYSTEM.CLUSTER.TRANSMIT.QUEUE (3269): that queue is clustering's own.
"""
from __future__ import annotations

from collections.abc import Mapping

from spark_mq.mqi.constants import CMQCFC

#: clustering's transmission queue (DEFCLXQ(SCTQ)), made with the queue manager
CLUSTER_XMITQ = "SYSTEM.CLUSTER.TRANSMIT.QUEUE"
#: the queues IBM lists under MQRCCF_CLUSTER_Q_USAGE_ERROR as never clustered
NOT_CLUSTERABLE = frozenset({
    "SYSTEM.CHANNEL.INITQ", "SYSTEM.CHANNEL.SYNCQ", "SYSTEM.CLUSTER.COMMAND.QUEUE",
    "SYSTEM.CLUSTER.REPOSITORY.QUEUE", "SYSTEM.COMMAND.INPUT", "SYSTEM.QSG.CHANNEL.SYNCQ",
    "SYSTEM.QSG.TRANSMIT.QUEUE"})
#: the channel types that belong to clusters
CLUSTER_CHANNEL_TYPES = frozenset({"CLUSSDR", "CLUSRCVR"})


class ClusterRefused(ValueError):
    """A DEFINE or ALTER IBM MQ refuses for its cluster attributes: runmqsc's text, and the
    PCF reason the command server answers."""

    def __init__(self, text: str, pcf_reason: int):
        super().__init__(text)
        self.pcf_reason = pcf_reason


def _set(attrs: Mapping[str, object], key: str) -> str:
    """An attribute's value, "" when it is blank (not set)."""
    return str(attrs.get(key, "") or "").strip()


def check_queue(kind: str, name: str, attrs: Mapping[str, object]) -> None:
    """Refuse a queue definition whose `attrs` (all of them, as the queue would have them
    after the command) IBM refuses for clustering."""
    cluster, namelist = _set(attrs, "CLUSTER"), _set(attrs, "CLUSNL")
    _one_of(f"{kind}({name})", cluster, namelist)
    usage = _set(attrs, "USAGE") or "NORMAL"
    if cluster or namelist:
        where = f"CLUSTER({cluster})" if cluster else f"CLUSNL({namelist})"
        if usage == "XMITQ":
            raise ClusterRefused(
                f"{kind}({name}) cannot be both a cluster queue ({where}) and a transmission "
                f"queue (USAGE(XMITQ)) (MQRCCF_CLUSTER_Q_USAGE_ERROR): give USAGE(NORMAL) or "
                f"blank CLUSTER and CLUSNL", CMQCFC.MQRCCF_CLUSTER_Q_USAGE_ERROR)
        if name in NOT_CLUSTERABLE:
            raise ClusterRefused(
                f"{kind}({name}) cannot be a cluster queue ({where}) "
                f"(MQRCCF_CLUSTER_Q_USAGE_ERROR): clustering and channels run on it; none of "
                f"{', '.join(sorted(NOT_CLUSTERABLE))} may be clustered",
                CMQCFC.MQRCCF_CLUSTER_Q_USAGE_ERROR)
    clchname = _set(attrs, "CLCHNAME")
    if clchname and kind in ("QLOCAL", "QMODEL") and usage != "XMITQ":
        raise ClusterRefused(
            f"CLCHNAME({clchname}) of {kind}({name}) needs USAGE(XMITQ), not USAGE({usage}) "
            f"(MQRCCF_CLUS_XMIT_Q_USAGE_ERROR): only a transmission queue carries cluster-sender "
            f"channels' messages; blank CLCHNAME or give USAGE(XMITQ)",
            CMQCFC.MQRCCF_CLUS_XMIT_Q_USAGE_ERROR)


def check_channel(chltype: str, name: str, attrs: Mapping[str, object]) -> None:
    """Refuse a CLUSSDR or CLUSRCVR whose `attrs` (after the command) name their clusters
    twice."""
    if chltype in CLUSTER_CHANNEL_TYPES:
        _one_of(f"CHANNEL({name}) CHLTYPE({chltype})", _set(attrs, "CLUSTER"),
                _set(attrs, "CLUSNL"))


def check_qmgr(attrs: Mapping[str, object]) -> None:
    """Refuse queue-manager attributes (after the command) IBM refuses for clustering."""
    repos, reposnl = _set(attrs, "REPOS"), _set(attrs, "REPOSNL")
    if repos and reposnl:
        raise ClusterRefused(
            f"REPOS({repos}) and REPOSNL({reposnl}) cannot both be set "
            f"(MQRCCF_REPOS_NAME_CONFLICT): the queue manager is a full repository for one "
            f"cluster (REPOS) or for a namelist of clusters (REPOSNL); blank the other",
            CMQCFC.MQRCCF_REPOS_NAME_CONFLICT)
    if _set(attrs, "DEFXMITQ") == CLUSTER_XMITQ:
        raise ClusterRefused(
            f"DEFXMITQ({CLUSTER_XMITQ}) is not allowed (MQRCCF_DEF_XMIT_Q_CLUS_ERROR): that "
            f"queue is reserved for clustering; name another transmission queue or blank",
            CMQCFC.MQRCCF_DEF_XMIT_Q_CLUS_ERROR)


def _one_of(what: str, cluster: str, namelist: str) -> None:
    if cluster and namelist:
        raise ClusterRefused(
            f"CLUSTER({cluster}) and CLUSNL({namelist}) of {what} cannot both be set "
            f"(MQRCCF_CLUSTER_NAME_CONFLICT): name one cluster in CLUSTER or a namelist of "
            f"clusters in CLUSNL, and blank the other", CMQCFC.MQRCCF_CLUSTER_NAME_CONFLICT)
