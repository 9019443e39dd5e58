"""Publish/subscribe's verbs: MQSUB and MQSUBRQ (subscribe.py, session_verbs.py), MQPUT/MQPUT1 to a
topic (publish.py, delivery.py) and retained publications (retained.py). What pub/sub keeps
is core/pubsub/; its administration is admin/pubsub/."""
