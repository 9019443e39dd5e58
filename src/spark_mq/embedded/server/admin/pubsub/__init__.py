"""Pub/sub's administration: MQSC DEFINE/ALTER/DELETE/DISPLAY TOPIC and SUB, TPSTATUS (mqsc_admin.py)
and what they change (administered.py)."""
