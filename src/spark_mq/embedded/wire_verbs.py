"""The embedded transport's verbs: one table, read by both ends of a connection.

A request is a frame [verb, arguments...] (wire.py's codec). `TABLE` names every verb once,
with what both ends must agree on:

- its arguments, as types: the queue manager checks a peer's frame against them (and against
  `items`, for what a type cannot say: the members of a list) before it trusts any of it; a
  frame that does not fit is a ProtocolError and ends that one connection;
- whether it is answered: the synchronous verbs are answered with [CompCode, Reason,
  outputs...]; an asynchronous put (PUTA) and a heartbeat (HB) are not, which is what lets a
  client pipeline puts without waiting;
- when it may come: most only on a connection whose MQCONN succeeded (before it, the answer
  is MQRC_HCONN_ERROR and an unanswered verb is dropped), PING, CONN, CONNT and HB at any
  time, and CHL and CHLR only before MQCONN: they make the connection a receiving channel,
  or the serving end of a requester channel;
- whether the connection ends with it (DISC; CHL and CHLR, whose socket the channel takes).

The client sends through these names (client/ spells no verb as a string: `request` and
client/connection.py's `call` take a `Verb`); the queue manager binds each entry to its
handler with `bind` (server/network/mqi_session.py), which refuses a table with a verb no handler
serves or a handler that serves no verb, so the queue manager does not start with either.

The frames that carry messages (PUT, PUTA and GET requests, their answers) also have fixed
binary layouts in wire.py; they decode to the very lists this table describes.

    verb    arguments                                             outputs after CompCode, Reason
    PING    -                                                     queue manager name
    HB      -                                                     (not answered)
    CONN    qmgr, user, password, appl name, channel or None      qmgr name, conn id, HBINT
    CONNT   qmgr, token, appl name, channel or None               as CONN's (an MQCSP with
                                                                  MQCSP_AUTH_ID_TOKEN)
    DISC    -                                                     -
    CHL     channel, sender qmgr, BATCHSZ, ping?, reset seq,      (the receiver's: link.py)
            MAXMSGL
    CHLR    channel, requester qmgr                               (the server's: link.py)
    OPEN    type, name, options, selection, dynamic name,         hobj, resolved queue, read-
            alternate user, qmgr name                             ahead, async puts, names
    CLOSE   hobj, options                                         -
    PUT     hobj, MQMD, options, context, properties, body        MQMD
    PUTA    as PUT                                                (not answered: MQSTAT)
    PUT1    type, name, qmgr, alternate user, then as PUT's       MQMD
    GET     hobj, MQMD, MQGMO, buffer length, has message handle  MQMD, MQGMO, data, length,
                                                                  properties
    GETN    hobj, MQGMO, has handle, max count, max bytes         [get result, ...]
    CMIT    -                                                     -
    BACK    -                                                     -
    STAT    type, MQSTS                                           MQSTS
    INQ     hobj, selectors                                       ints, chars
    SET     hobj, selectors, ints, chars                          -
    CBWAIT  consumers, wait ms, first                             index, [get result, ...]
    TOPEN   object name, object string, options, alternate user   hobj, topic string
    SUB     the MQSD's input fields, hobj, alternate user         (verbs/pubsub/session_verbs.py)
    SUBRQ   hsub, action                                          publications sent
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from spark_mq.embedded.wire import GMO_SIZE, MD_SIZE, ProtocolError, frame
from spark_mq.mqi import properties as props_mod

#: when a verb may come (`Verb.when`)
CONNECTED, ANY, BEFORE_CONNECT = "connected", "any", "before connect"

Shape = type | tuple[type, ...]


@dataclass(frozen=True, eq=False)
class Verb:
    """One verb of the table (see the module docstring). Compared by identity: a verb is
    the table's entry, never a look-alike built elsewhere."""
    name: str
    arguments: tuple[Shape, ...]
    answered: bool = True
    when: str = CONNECTED
    ends: bool = False
    #: checks what the types cannot (the members of lists): raises ProtocolError
    items: Callable[[list], None] | None = None

    def check(self, args: list) -> None:
        """ProtocolError unless `args` fit this verb's arguments."""
        if len(args) != len(self.arguments):
            raise ProtocolError(f"{self.name} takes {len(self.arguments)} arguments, not {len(args)}")
        for position, (value, expected) in enumerate(zip(args, self.arguments)):
            # bool is an int to isinstance; an int argument is never a bool on the wire
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ProtocolError(f"{self.name} argument {position + 1} has the wrong type")
        if self.items is not None:
            self.items(args)


def _properties(args: list) -> None:
    """A put's properties (its next-to-last argument), from the client's message handle:
    [name, MQTYPE, value] each."""
    props = args[-2]
    if props is None:
        return
    for item in props:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
                and type(item[1]) is int):
            raise ProtocolError("a message property must be [name, type, value]")
        try:
            props_mod.validate_name(item[0])
            props_mod.coerce_value(item[1], item[2], len(item[2]) if isinstance(item[2], bytes) else -1)
        except props_mod.PropertyError as exc:
            raise ProtocolError(f"message property {item[0]!r}: {exc}") from None


def _consumers(args: list) -> None:
    """CBWAIT's consumers (server/verbs/consumers.py): [hobj, md, gmo, max_length,
    has_handle, batch] each."""
    for item in args[0]:
        if not (isinstance(item, list) and len(item) == 6 and type(item[0]) is int
                and isinstance(item[1], bytes) and len(item[1]) == MD_SIZE
                and isinstance(item[2], bytes) and len(item[2]) == GMO_SIZE
                and type(item[3]) is int and isinstance(item[4], bool) and type(item[5]) is int):
            raise ProtocolError("a CBWAIT consumer must be [hobj, md, gmo, max_length, "
                                "has_handle, batch]")


def _integers(*positions: int) -> Callable[[list], None]:
    """The lists at `positions` (selectors, integer attributes) hold integers only."""
    def check(args: list) -> None:
        if not all(type(item) is int for position in positions for item in args[position]):
            raise ProtocolError("selectors and values must be integers")
    return check


_STR_OR_NONE = (str, type(None))
_PROPS = (list, type(None))
_PUT_ARGS = (int, bytes, int, int, _PROPS, bytes)

PING = Verb("PING", (), when=ANY)
HB = Verb("HB", (), answered=False, when=ANY)
CONN = Verb("CONN", (str, str, str, str, _STR_OR_NONE), when=ANY)
# MQCONNX with an authentication token instead of a user and password (server core/security/tokens.py)
CONNT = Verb("CONNT", (str, str, str, _STR_OR_NONE), when=ANY)
DISC = Verb("DISC", (), ends=True)
# answered by the receiving channel, in the channel's own frames (message_channels/link.py)
CHL = Verb("CHL", (str, str, int, bool, int, int), answered=False, when=BEFORE_CONNECT, ends=True)
# a requester channel asking for its server (or sender): answered in the channel's frames
CHLR = Verb("CHLR", (str, str), answered=False, when=BEFORE_CONNECT, ends=True)
OPEN = Verb("OPEN", (int, str, int, _STR_OR_NONE, str, str, str))
CLOSE = Verb("CLOSE", (int, int))
PUT = Verb("PUT", _PUT_ARGS, items=_properties)
PUTA = Verb("PUTA", _PUT_ARGS, answered=False, items=_properties)
PUT1 = Verb("PUT1", (int, str, str, str, bytes, int, int, _PROPS, bytes), items=_properties)
GET = Verb("GET", (int, bytes, bytes, int, bool))
GETN = Verb("GETN", (int, bytes, bool, int, int))
CMIT = Verb("CMIT", ())
BACK = Verb("BACK", ())
STAT = Verb("STAT", (int, bytes))
INQ = Verb("INQ", (int, list), items=_integers(1))
SET = Verb("SET", (int, list, list, bytes), items=_integers(1, 2))
CBWAIT = Verb("CBWAIT", (list, int, int), items=_consumers)
TOPEN = Verb("TOPEN", (str, str, int, str))
SUB = Verb("SUB", (int, str, str, str, str, bytes, int, bytes, bytes, int, str, int, int, str))
SUBRQ = Verb("SUBRQ", (int, int))

#: every verb, by name
TABLE: Mapping[str, Verb] = {verb.name: verb for verb in (
    PING, HB, CONN, CONNT, DISC, CHL, CHLR, OPEN, CLOSE, PUT, PUTA, PUT1, GET, GETN, CMIT, BACK,
    STAT, INQ, SET, CBWAIT, TOPEN, SUB, SUBRQ)}


def request(verb: Verb, *args: object) -> bytes:
    """The framed request `verb` with `args`."""
    return frame([verb.name, *args])


def check_request(value: object) -> tuple[Verb, list]:
    """The verb and arguments of a peer's request, once the whole frame fits the verb's
    entry; ProtocolError if not."""
    if not isinstance(value, list) or not value or not isinstance(value[0], str):
        raise ProtocolError("a request must be a list starting with a verb")
    verb = TABLE.get(value[0])
    if verb is None:
        raise ProtocolError(f"unknown verb {value[0]!r}")
    args = value[1:]
    verb.check(args)
    return verb, args


class VerbTableError(Exception):
    """A verb without a handler, or a handler without a verb: the queue manager does not start."""


Handler = TypeVar("Handler")


def bind(handlers: Mapping[Verb, Handler], offered: Iterable[object] = ()) -> dict[str, Handler]:
    """Verb name -> handler, for every verb of the table. `offered`: every handler the server
    defines; one that no verb is bound to is refused like a verb without a handler."""
    strangers = [getattr(verb, "name", repr(verb)) for verb in handlers
                 if TABLE.get(getattr(verb, "name", "")) is not verb]
    unserved = [name for name, verb in TABLE.items() if verb not in handlers]
    bound = set(map(id, handlers.values()))
    idle = [getattr(handler, "__qualname__", repr(handler)) for handler in offered
            if id(handler) not in bound]
    problems = ([f"verbs not in the table: {', '.join(strangers)}"] if strangers else []) + \
        ([f"verbs without a handler: {', '.join(unserved)}"] if unserved else []) + \
        ([f"handlers without a verb: {', '.join(idle)}"] if idle else [])
    if problems:
        raise VerbTableError(f"the wire verbs and their handlers do not match ({'; '.join(problems)}); "
                             f"valid verbs: {', '.join(TABLE)}")
    return {verb.name: handler for verb, handler in handlers.items()}
