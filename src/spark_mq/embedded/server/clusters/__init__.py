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

What holds now (the first slice of issue 36; docs/embedded/clusters.md is the user's page):

    definitions.py  the cluster attributes as IBM's MQSC and PCF take and show them, and the
                    refusals IBM gives for them (MQRCCF_CLUSTER_NAME_CONFLICT 3088,
                    REPOS_NAME_CONFLICT 3089, CLUSTER_Q_USAGE_ERROR 3090,
                    DEF_XMIT_Q_CLUS_ERROR 3269, CLUS_XMIT_Q_USAGE_ERROR 3363)

Not yet: the repository manager (joining a cluster through a CLUSSDR to a full repository,
publications and subscriptions on SYSTEM.CLUSTER.COMMAND.QUEUE), auto-defined cluster
senders, DISPLAY CLUSQMGR and QCLUSTER, MQOPEN of a queue known only from the cluster, the
workload algorithm and the bind options, SUSPEND/RESUME QMGR, REFRESH and RESET CLUSTER.
Until then a cluster channel is a definition that no channel agent starts, a clustered
queue is an ordinary queue of its own queue manager, and the cluster commands of the slices
to come are refused by name (admin/mqsc_apply.py) rather than ignored.

The shape the next slice is meant to take (a plan, not yet code): the records (a member's
CLUSRCVR as its queue-manager record, each clustered queue as a queue record) are store
objects of their own kinds, mirrored onto SYSTEM.CLUSTER.REPOSITORY.QUEUE by
core/system_queues.py's `hold` as the authority records are onto theirs; a cluster-sender is
a sending agent whose transmission queue is SYSTEM.CLUSTER.TRANSMIT.QUEUE and which takes
only the messages whose CorrelId is its channel name (IBM's rule), and a CLUSRCVR receives as
a RCVR does; publications and subscriptions are messages to the partner's
SYSTEM.CLUSTER.COMMAND.QUEUE, which a repository manager here reads.
"""
