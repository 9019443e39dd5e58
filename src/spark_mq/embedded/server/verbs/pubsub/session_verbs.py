"""The listener's publish/subscribe verbs (runs in the queue-manager process).

network/mqi_session.py binds these to their entries of the verb table (embedded/wire_verbs.py,
which holds their arguments): each is called with the client's session and the frame's
arguments, and answers the outputs that follow [CompCode, Reason]. MQPUT on a topic
handle and MQCLOSE of a subscription handle arrive as the ordinary PUT and CLOSE verbs.

    TOPEN  object name, object string, options, alternate user -> hobj, resolved topic string
    SUB    the MQSD's input fields, hobj, alternate user       -> see `v_sub`
    SUBRQ  hsub, action                               -> number of publications sent
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spark_mq.embedded.server.core.outcomes import MQError
from spark_mq.embedded.server.core.pubsub.pubsub_state import Subscription
from spark_mq.embedded.server.verbs.handles import handle_of
from spark_mq.embedded.server.verbs.pubsub import retained
from spark_mq.embedded.server.verbs.pubsub import subscribe as subscriptions
from spark_mq.embedded.server.verbs.pubsub.subscribe import SubRequest
from spark_mq.embedded.wire_verbs import SUB, SUBRQ, TOPEN, Verb
from spark_mq.mqi.constants import CMQC


def v_topen(session: Any, object_name: str, object_string: str, options: int,
            alternate_user: str) -> list:
    qm = session.qmgr
    with qm.lock:
        handle = subscriptions.open_topic(qm, session.connected, object_name, object_string, options,
                                          alternate_user)
        return [handle.hobj, handle.topic]


def v_sub(session: Any, options: int, object_name: str, object_string: str, sub_name: str,
          user_data: str, correl_id: bytes, priority: int, accounting_token: bytes,
          appl_identity: bytes, expiry: int, selection: str, sub_level: int, hobj: int,
          alternate_user: str) -> list:
    """Answers [hobj, hsub, SubCorrelId, PubPriority, PubAccountingToken,
    PubApplIdentityData, SubExpiry, SubUserData, topic string, queue name, read-ahead,
    options]: the subscription's values, which MQ returns in the MQSD (they differ from the
    input on a resume: the options then say whether it is durable, managed...)."""
    qm = session.qmgr
    request = SubRequest(options, object_name, object_string, sub_name, user_data, correl_id,
                         priority, accounting_token, appl_identity, expiry, selection, sub_level,
                         hobj, alternate_user)
    with qm.lock:
        handle, queue_hobj = subscriptions.subscribe(qm, session.connected, request)
        sub = handle.subscription
        assert isinstance(sub, Subscription)
        queue_handle = session.connected.handles.get(queue_hobj)
        read_ahead = bool(queue_handle is not None and queue_handle.read_ahead)
        return [queue_hobj, handle.hobj, sub.correl_id, sub.priority, sub.accounting_token,
                sub.appl_identity, sub.expiry, sub.user_data, sub.topic_string, sub.destination,
                read_ahead, _options(sub)]


def _options(sub: Subscription) -> int:
    """The MQSO_* options that describe an existing subscription."""
    kept = sub.options & (CMQC.MQSO_PUBLICATIONS_ON_REQUEST | CMQC.MQSO_NEW_PUBLICATIONS_ONLY
                          | CMQC.MQSO_SET_CORREL_ID | CMQC.MQSO_SET_IDENTITY_CONTEXT)
    return (kept | (CMQC.MQSO_DURABLE if sub.durable else 0)
            | (CMQC.MQSO_MANAGED if sub.managed else 0)
            | (CMQC.MQSO_WILDCARD_CHAR if sub.wildcard_char else 0)
            | (CMQC.MQSO_ANY_USERID if sub.any_user else 0))


def v_subrq(session: Any, hsub: int, action: int) -> list:
    qm = session.qmgr
    with qm.lock:
        handle = handle_of(session.connected, hsub)
        if not isinstance(handle.subscription, Subscription):
            raise MQError(CMQC.MQRC_HOBJ_ERROR)  # an hsub is an object handle here
        if action != CMQC.MQSR_ACTION_PUBLICATION:
            raise MQError(CMQC.MQRC_ACTION_ERROR)
        return [retained.request(qm, handle.subscription)]


#: the verbs of wire_verbs.TABLE served here; network/mqi_session.py binds them with its own
HANDLERS: dict[Verb, Callable[..., list]] = {TOPEN: v_topen, SUB: v_sub, SUBRQ: v_subrq}
