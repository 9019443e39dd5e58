"""Event messages (IBM MQ's "event monitoring"): PCF messages the queue manager puts on its
SYSTEM.ADMIN.*.EVENT queues when something an administrator watches happens.

These kinds are generated here, each switched on the queue manager:

* performance events (ALTER QMGR PERFMEV(ENABLED); performance.py): Queue Depth High, Queue
  Depth Low and Queue Full on SYSTEM.ADMIN.PERFM.EVENT, by each local queue's QDEPTHHI,
  QDEPTHLO, QDPHIEV, QDPLOEV and QDPMAXEV, with IBM's switching of those flags after each
  event and the queue statistics (statistics.py) that each event reports and resets; and
  Queue Service Interval High and OK, by each queue's QSVCIEV and QSVCINT;
* channel events (ALTER QMGR CHLEV(ENABLED|EXCEPTION); channel.py): Channel Started and
  Channel Stopped on SYSTEM.ADMIN.CHANNEL.EVENT, from the message channel agents;
* queue manager events (AUTHOREV, INHIBTEV, LOCALEV, REMOTEEV, STRSTPEV; queue_manager.py) on
  SYSTEM.ADMIN.QMGR.EVENT: the verbs call `open_refused`, `topic_open_refused`,
  `close_refused`, `subscribe_refused`, `destination_refused`, `inhibited`,
  `connect_refused` as they refuse a call, the command server `command_refused`, the
  process `started` and the queue manager's clean shutdown `stopping`;
* configuration events (CONFIGEV; configuration.py) on SYSTEM.ADMIN.CONFIG.EVENT: Create,
  Change (before and after), Delete and Refresh object, from admin/mqsc_apply.py, where
  MQSC and PCF changes are applied (`watch` before a command, `applied` after it);
* command events (CMDEV ENABLED|NODISPLAY; command.py) on SYSTEM.ADMIN.COMMAND.EVENT, one per
  command the command server runs successfully (`command_run`).
Configuration and command events say who caused them (origin.py): the command server sets
the origin of each request for what it runs (`commands_from`).

The put and get paths (put.py, get.py, verbs/pubsub/delivery.py) call one hook, `depth_changed`,
after every change of a queue's depth and for every put a full queue refuses; it counts the
queue's statistics (statistics.py: what performance events report, and what DISPLAY QSTATUS
and the metrics exporter show) and, only when PERFMEV is ENABLED, looks at the limits; a
unit of work backed out calls `backed_out` (units_of_work.py). The channel agents
(message_channels/sender.py, receiver.py) call `channel_started` and `channel_stopped`.

Every event message is put by event_messages.py: MQFMT_EVENT, an MQCFH of type MQCFT_EVENT and the
event's parameters (pcf_structures.py), outside any unit of work, as IBM MQ puts them. An
event queue that is missing, full or put-inhibited loses the event, as on IBM MQ.

This package imports nothing of the verbs that call it (the server's import graph has no
cycles, tests/test_code_checks.py).
"""
from __future__ import annotations

from spark_mq.embedded.server.events.channel import channel_started, channel_stopped
from spark_mq.embedded.server.events.command import command_run
from spark_mq.embedded.server.events.origin import Origin, commands_from
from spark_mq.embedded.server.events.performance import DepthChange, depth_changed
from spark_mq.embedded.server.events.statistics import backed_out

__all__ = ["DepthChange", "Origin", "backed_out", "channel_started", "channel_stopped",
           "command_run", "commands_from", "depth_changed"]
