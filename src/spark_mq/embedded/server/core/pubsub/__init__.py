"""Publish/subscribe in the embedded queue manager (runs in the queue-manager process).

Its modules lie on three floors of the server (paths from server/):
    core/pubsub/pubsub_state.py     what pub/sub keeps: topic objects, subscriptions, retained publications
    core/pubsub/topic_attributes.py the TOPIC object's MQSC attributes, their types and defaults
    core/pubsub/topics.py           topic objects, the topic tree and how an attribute is inherited in it
    core/pubsub/topic_matching.py   topic strings against subscriptions' wildcards ('#' '+', or '*' '?')
    core/pubsub/storage.py          durable subscriptions and persistent retained publications in the store
    core/pubsub/topic_authority.py  the authorities a subscription or a publication needs
    verbs/pubsub/subscribe.py       MQSUB (create, resume, alter), MQCLOSE of a subscription, MQDISC
    verbs/pubsub/publish.py         MQPUT/MQPUT1 to a topic: one message per matching subscription
    verbs/pubsub/delivery.py        the message a subscription gets for a publication, onto its queue
    verbs/pubsub/retained.py        retained publications (MQPMO_RETAIN) and MQSUBRQ
    verbs/pubsub/session_verbs.py   the listener's pub/sub verbs (TOPEN, SUB, SUBRQ)
    admin/pubsub/administered.py    what administrators change on topics and subscriptions
    admin/pubsub/pubsub_mqsc.py     MQSC on TOPIC, SUB and TPSTATUS: DEFINE, ALTER, DELETE, DISPLAY
Publications are delivered as ordinary messages on the subscriptions' queues, so a unit of
work, persistence and waiting gets behave exactly as for point-to-point messages.
"""
