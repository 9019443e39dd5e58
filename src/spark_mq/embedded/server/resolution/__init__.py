"""Distributed queuing's name resolution, in the queue-manager process: which queue an
MQOPEN or MQPUT1 of (ObjectName, ObjectQMgrName) reaches (names.py), and how a message for
another queue manager is laid on a transmission queue behind an MQXQH (transmission.py).

The core put and get path imports these modules; they import nothing of it back."""
