"""Pub/sub's administration: MQSC DEFINE/ALTER/DELETE/DISPLAY TOPIC and SUB, TPSTATUS (pubsub_mqsc.py)
and what they change (administered.py)."""
