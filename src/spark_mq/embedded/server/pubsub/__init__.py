"""Publish/subscribe in the embedded queue manager (runs in the queue-manager process).

    state.py          what pub/sub keeps: topic objects, subscriptions, retained publications
    topic_attributes.py  the TOPIC object's MQSC attributes, their types and defaults
    topics.py         topic objects, the topic tree and how an attribute is inherited in it
    matching.py       topic strings against subscriptions' wildcards ('#' '+', or '*' '?')
    subscriptions.py  MQSUB (create, resume, alter), MQCLOSE of a subscription, MQDISC
    publish.py        MQPUT/MQPUT1 to a topic: one message per matching subscription
    delivery.py       the message a subscription gets for a publication, onto its queue
    retained.py       retained publications (MQPMO_RETAIN) and MQSUBRQ
    storage.py        durable subscriptions and persistent retained publications in the store
    verbs.py          the listener's pub/sub verbs (TOPEN, SUB, SUBRQ)
    admin.py          MQSC DEFINE/ALTER/DELETE/DISPLAY TOPIC, DEFINE/DELETE/DISPLAY SUB, TPSTATUS

Publications are delivered as ordinary messages on the subscriptions' queues, so a unit of
work, persistence and waiting gets behave exactly as for point-to-point messages.
"""
