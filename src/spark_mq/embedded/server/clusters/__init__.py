"""Clusters (IBM MQ's "Configuring a queue manager cluster"), in the queue-manager process:
one queue advertised by several queue managers, found through repositories and reached over
cluster channels, each put given to one instance by IBM's workload algorithm.

DESIGN.md's shape: a cluster is distributed queuing plus two repositories' worth of records
and the workload algorithm. Cluster channels are channels (core/channel_definitions.py keeps
CLUSSDR and CLUSRCVR definitions beside SDR and RCVR), the cluster transmission queue is a
transmission queue (SYSTEM.CLUSTER.TRANSMIT.QUEUE, made with the other system queues by
core/system_queues.py), and the choice of an instance is a function the name resolution
will call at MQOPEN or MQPUT. This package sits on the hooks' floor, beside resolution/:
the verbs and administration call it, it calls only the core.

What holds now (issue 36's first two slices; docs/embedded/clusters.md is the user's page):

    definitions.py  the cluster attributes as IBM's MQSC and PCF take and show them, and the
                    refusals IBM gives for them (MQRCCF_CLUSTER_NAME_CONFLICT 3088,
                    REPOS_NAME_CONFLICT 3089, CLUSTER_Q_USAGE_ERROR 3090,
                    DEF_XMIT_Q_CLUS_ERROR 3269, CLUS_XMIT_Q_USAGE_ERROR 3363)
    records.py      the repository: which clusters an object is in (`clusters_of`: CLUSTER,
                    or each cluster of the namelist CLUSNL names; REPOS/REPOSNL), a
                    member's own records (read from its CLUSRCVR and its clustered queues,
                    one set per cluster) and those it learned, kept as store objects mirrored
                    onto SYSTEM.CLUSTER.REPOSITORY.QUEUE; the auto-defined cluster-senders
                    (CLUSSDRA) built from the learned CLUSRCVRs
    workload.py     IBM's cluster workload management algorithm, its ordered rules as a
                    pure function of the candidate instances and the channels' sequence
                    factors (rank, PUT(DISABLED), CLWLUSEQ, SUSPEND, channel status,
                    NETPRTY, CLWLPRTY, CLWLMRUC, least recently used by CLWLWGHT)
    routing.py      `route`: the candidates (records, channel status, the local queue) run
                    through workload.py; resolution/names.py calls it through
                    `cluster_route` at MQOPEN, and again at each put of a handle bound
                    MQOO_BIND_NOT_FIXED or each new group of one bound MQOO_BIND_ON_GROUP;
                    `member`: the cluster-sender to a member named in ObjectQMgrName
                    (through `cluster_member`, no workload choice)
    interest.py     a partial repository's MQOPEN of a queue or member it does not know:
                    asked of a full repository, the open waiting (bounded) for the answer;
                    wraps routing.py's `route` and `member`
    membership.py   REFRESH CLUSTER (forget, publish again) and RESET CLUSTER
                    ACTION(FORCEREMOVE) (forget a member, tell the others)
    trust.py        which cluster command is kept: the receiving MCA of a CLUSRCVR vouches
                    for who sent it (channel and partner), a member publishes only its own
                    records, only a known full repository forwards or replies, nothing put
                    by a local application is kept, and a command's size is bounded

Outside this package, on the floors that may move messages: message_channels/sender.py runs
a CLUSSDR (defined or auto-defined) as a sender whose transmission queue is
SYSTEM.CLUSTER.TRANSMIT.QUEUE, opened shared, taking only the messages whose CorrelId is its
channel name (IBM's rule); receiver.py receives on a CLUSRCVR as on a RCVR, one instance per
sending member; message_channels/repository.py is the repository manager (publications to
the full repositories, forwarding between them, replies; its design note is there);
initiator.py starts it and starts a cluster-sender when messages for it arrive;
reallocation.py gives the BIND_NOT_FIXED messages waiting for a cluster-sender that retries
or stops to another instance;
admin/cluster_display.py is DISPLAY CLUSQMGR and DISPLAY QCLUSTER, admin/cluster_control.py
SUSPEND and RESUME QMGR (records.py keeps the flag), REFRESH and RESET CLUSTER, and
admin/command_server/cluster_commands.py their PCF twins.

Not yet: DEFCLXQ(CHANNEL), a partial repository's subscriptions (what it
asked a full repository at MQOPEN is not kept up to date), a cluster workload exit, SUSPEND
QMGR MODE(FORCE), PCF Inquire Queue with MQQT_CLUSTER.
"""
