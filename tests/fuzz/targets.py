"""The fuzz lane's targets: each parser the queue manager feeds with what a peer sends, the
inputs that reach it (hypothesis strategies: random bytes, valid input, valid input
mutated), and the one property every target has: it answers, or fails with its own
documented error, never with anything else.

Shared by tests/fuzz (a small fixed budget in the suite) and bench/fuzz_long.py (a long run).

| target | input | documented failure |
|---|---|---|
| wire frame decoder (embedded/wire.py) | a frame's body | ProtocolError |
| request check (embedded/wire_verbs.py check_request) | a decoded request | ProtocolError |
| MQSC parser (server/mqsc.py) | script text | MQSCError |
| PCF parser (server/command_server/pcf.py) | a command message | PCFError |
| MQRFH2 decoder (mqi/properties/_rfh2.py) | message data | PropertyError |
| MQGMO_CONVERT (server/convert.py) | MQDLH/MQXQH/MQMDE/MQRFH/MQRFH2 chains | none: a reason in the result |
| channel hello (message_channels/link.py check_hello, hello_reset) | a hello's arguments | ProtocolError |
| channel message (link.py check_message) | a MSG frame | ProtocolError |
| channel batch end (link.py check_end) | an END frame | ProtocolError |
| sync record in a hello's answer (sync.py SyncRecord.from_wire) | a decoded value | ValueError |
| sync record on SYSTEM.CHANNEL.SYNCQ (sync.py parse_record) | a message's data | ValueError |
| transmission header (resolution/transmission.py unwrap) | MQXQH[+MQMDE] data | None (else a packable MQMD) |
"""
from __future__ import annotations

import json
import struct
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

from spark_mq.embedded import wire, wire_verbs
from spark_mq.embedded.server.admin import mqsc
from spark_mq.embedded.server.admin.command_server import pcf
from spark_mq.embedded.server.core.channel_definitions import SVRCONN_ATTRIBUTES
from spark_mq.embedded.server.core.convert import Converted, convert_message
from spark_mq.embedded.server.core.mqsc_attributes import QMGR_ATTRIBUTES, QUEUE_ATTRIBUTES
from spark_mq.embedded.server.message_channels import link, sync
from spark_mq.embedded.server.resolution.transmission import unwrap
from spark_mq.mqi.constants import CMQC, CMQCFC
from spark_mq.mqi.properties import PropertyError
from spark_mq.mqi.properties._rfh2 import decode_rfh2
from spark_mq.mqi.structs import DLH, MD, MD1, MDE, RFH1, RFH2, XQH

#: the decode bounds the queue manager applies to a connected client's requests
REQUEST_MAX_ELEMENTS = 1 << 18


# --- mutation ----------------------------------------------------------------------------
@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[bytes], most: int = 6) -> bytes:
    """`base`'s bytes with a few edits: bytes overwritten (often with boundary values),
    slices dropped, duplicated or inserted, the end cut off."""
    data = bytearray(draw(base))
    for _ in range(draw(st.integers(0, most))):
        kind = draw(st.sampled_from(("set", "int", "cut", "drop", "dup", "insert")))
        at = draw(st.integers(0, len(data))) if data else 0
        if kind == "set" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "int" and len(data) >= 4:
            at = min(at, len(data) - 4)
            value = draw(st.sampled_from((0, 1, 0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 0xFFFF, 4096,
                                          0x10000000, 3, 36, 172, 428)))
            data[at:at + 4] = struct.pack(draw(st.sampled_from(("<I", ">I"))), value)
        elif kind == "cut":
            del data[at:]
        elif kind == "drop":
            del data[at:at + draw(st.integers(1, 16))]
        elif kind == "dup" and data:
            end = min(len(data), at + draw(st.integers(1, 64)))
            data[at:at] = data[at:end] * draw(st.integers(1, 8))
        elif kind == "insert":
            data[at:at] = draw(st.binary(max_size=16))
    return bytes(data)


def inputs(valid: st.SearchStrategy[bytes], max_random: int = 2048) -> st.SearchStrategy[bytes]:
    """Random bytes, valid input, and valid input mutated."""
    return st.one_of(st.binary(max_size=max_random), valid, mutated(valid))


# --- the wire frame decoder --------------------------------------------------------------
_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**63, 2**63 - 1),
                     st.floats(allow_nan=False), st.text(max_size=40), st.binary(max_size=40))
values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=8), max_leaves=40)
_verbs = st.sampled_from((*wire_verbs.TABLE, "MQSC"))
requests = st.builds(lambda verb, args: [verb, *args], _verbs, st.lists(values, max_size=8))
_fixed = st.builds(lambda tag, rest: tag + rest, st.sampled_from((b"P", b"G", b"r", b"p", b"g", b"n")),
                   st.binary(max_size=700))
frame_bodies = inputs(st.one_of(requests.map(wire.encode), values.map(wire.encode), _fixed))


def check_frame(body: bytes) -> object:
    try:
        return wire.decode(body, REQUEST_MAX_ELEMENTS)
    except wire.ProtocolError:
        return None


# --- the request check (embedded/wire_verbs.py) ----------------------------------------
_md = st.binary(min_size=wire.MD_SIZE, max_size=wire.MD_SIZE)
_gmo = st.binary(min_size=wire.GMO_SIZE, max_size=wire.GMO_SIZE)
# list members near what the table's item checks take: properties, CBWAIT consumers
_items = st.one_of(values, st.lists(values, min_size=3, max_size=3),
                   st.lists(st.one_of(st.integers(-2**31, 2**31), _md, _gmo, st.booleans()),
                            min_size=6, max_size=6))
_of_type = {int: st.integers(-2**63, 2**63 - 1), str: st.text(max_size=48), bool: st.booleans(),
            bytes: st.one_of(st.binary(max_size=40), _md, _gmo),
            list: st.lists(_items, max_size=4), type(None): st.none()}


def _argument(shape: object) -> st.SearchStrategy[object]:
    kinds = shape if isinstance(shape, tuple) else (shape,)
    return st.one_of(*(_of_type[kind] for kind in kinds), values)


def _fitting(verb: wire_verbs.Verb) -> st.SearchStrategy[list]:
    """Requests shaped like `verb`'s entry, their arguments sometimes of the wrong type."""
    return st.tuples(*(_argument(shape) for shape in verb.arguments)).map(lambda args: [verb.name, *args])


decoded_requests = st.one_of(requests, values, *(_fitting(verb) for verb in wire_verbs.TABLE.values()))


def check_request(value: object) -> object:
    try:
        return wire_verbs.check_request(value)
    except wire.ProtocolError:
        return None


# --- the MQSC parser ---------------------------------------------------------------------
_keywords = sorted({*QUEUE_ATTRIBUTES, *QMGR_ATTRIBUTES, *SVRCONN_ATTRIBUTES, "CHLTYPE", "TYPE",
                    "REPLACE", "NOREPLACE", "PURGE", "FORCE", "PRINCIPAL", "GROUP", "AUTHADD",
                    "AUTHRMV", "OBJTYPE", "PROFILE", "ADDRLIST", "USERSRC", "ACTION", "NAMES",
                    "TOPICSTR", "ALL", "LIKE", "WHERE", "CMDSCOPE", "SHARE", "NOSHARE"})
_nouns = ("QLOCAL", "QL", "QALIAS", "QA", "QMODEL", "QM", "QREMOTE", "QUEUE", "Q", "QMGR", "CHANNEL",
          "CHL", "CHLAUTH", "AUTHREC", "AUTHINFO", "NAMELIST", "NL", "TOPIC", "SUB", "LISTENER",
          "SERVICE", "PROCESS", "QSTATUS", "CHSTATUS", "SECURITY", "QMSTATUS", "CONN")
_verbs_mqsc = ("DEFINE", "DEF", "ALTER", "DELETE", "DISPLAY", "DIS", "CLEAR", "SET", "REFRESH",
               "START", "STOP", "END", "PING", "RESET", "RESOLVE")
_word = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcxyz0123456789._/%*", min_size=1, max_size=12)
_value = st.one_of(_word, st.integers(-10, 2**40).map(str),
                   st.text(max_size=20).map(lambda t: "'" + t.replace("'", "''") + "'"),
                   st.text(max_size=8))
_param = st.one_of(st.sampled_from(_keywords),
                   st.builds(lambda k, v: f"{k}({v})", st.sampled_from(_keywords), _value),
                   st.builds(lambda k, vs: f"{k}({' '.join(vs)})", st.sampled_from(_keywords),
                             st.lists(_value, max_size=4)))
_command = st.builds(lambda verb, noun, name, params, end: " ".join([verb, noun, name, *params]) + end,
                     st.sampled_from(_verbs_mqsc), st.sampled_from(_nouns),
                     st.one_of(st.just(""), _word.map(lambda w: f"({w})"), _value.map(lambda v: f"({v})")),
                     st.lists(_param, max_size=6),
                     st.sampled_from(("", ";", " +", " -", "\n", "\n*comment\n")))
_mqsc_valid = st.lists(_command, min_size=1, max_size=5).map("\n".join)
_mqsc_noise = st.text(alphabet=st.sampled_from(list("DEFINQLOCA()'+-;*, \n\t\r\x00é" "ABCXYZ019.")),
                      max_size=200)
mqsc_texts = st.one_of(_mqsc_noise, st.text(max_size=200), _mqsc_valid,
                       mutated(_mqsc_valid.map(lambda t: t.encode("utf-8"))).map(
                           lambda b: b.decode("utf-8", "replace")))


def check_mqsc(text: str) -> object:
    try:
        return mqsc.parse_mqsc(text)
    except mqsc.MQSCError:
        return None


# --- the PCF parser ----------------------------------------------------------------------
_long = st.one_of(st.integers(-2**31, 2**31 - 1),
                  st.sampled_from((0, 1, 2, 3, -1, 4, 8, 16, 0x7FFFFFFF, -2**31, 1000, 2**20)))
_pad = lambda n: (-n) % 4  # noqa: E731 - PCF strings are padded to a multiple of four


def _structure(kind: int, fields: tuple[int, ...], tail: bytes) -> bytes:
    """A PCF structure with a right StrucLength (mutation makes it wrong)."""
    length = 4 * (2 + len(fields)) + len(tail)
    length += _pad(length)
    body = struct.pack(f"=2i{len(fields)}i", kind, length, *fields) + tail
    return body + b"\0" * _pad(len(body))


@st.composite
def _pcf_parameter(draw: st.DrawFn, depth: int = 0) -> bytes:
    kind = draw(st.sampled_from((CMQCFC.MQCFT_INTEGER, CMQCFC.MQCFT_INTEGER64, CMQCFC.MQCFT_STRING,
                                 CMQCFC.MQCFT_INTEGER_LIST, CMQCFC.MQCFT_INTEGER64_LIST,
                                 CMQCFC.MQCFT_STRING_LIST, CMQCFC.MQCFT_BYTE_STRING,
                                 CMQCFC.MQCFT_INTEGER_FILTER, CMQCFC.MQCFT_STRING_FILTER,
                                 CMQCFC.MQCFT_BYTE_STRING_FILTER, CMQCFC.MQCFT_GROUP, 99)))
    parameter = draw(_long)
    text = draw(st.binary(max_size=24))
    if kind == CMQCFC.MQCFT_INTEGER:
        return _structure(kind, (parameter, draw(_long)), b"")
    if kind == CMQCFC.MQCFT_INTEGER64:
        return _structure(kind, (parameter, 0), struct.pack("=q", draw(st.integers(-2**63, 2**63 - 1))))
    if kind in (CMQCFC.MQCFT_STRING, CMQCFC.MQCFT_BYTE_STRING):
        fields = (parameter, 1208, len(text)) if kind == CMQCFC.MQCFT_STRING else (parameter, len(text))
        if draw(st.booleans()):
            fields = (*fields[:-1], draw(_long))
        return _structure(kind, fields, text)
    if kind in (CMQCFC.MQCFT_INTEGER_LIST, CMQCFC.MQCFT_INTEGER64_LIST):
        items = draw(st.lists(_long, max_size=6))
        item = "i" if kind == CMQCFC.MQCFT_INTEGER_LIST else "q"
        count = draw(st.one_of(st.just(len(items)), _long))
        return _structure(kind, (parameter, count), struct.pack(f"={len(items)}{item}", *items))
    if kind == CMQCFC.MQCFT_STRING_LIST:
        strings = draw(st.lists(st.binary(min_size=4, max_size=4), max_size=4))
        count = draw(st.one_of(st.just(len(strings)), _long))
        length = draw(st.one_of(st.just(4), st.just(0), _long))   # 0: strings of no bytes
        return _structure(kind, (parameter, 1208, count, length), b"".join(strings))
    if kind in (CMQCFC.MQCFT_INTEGER_FILTER, CMQCFC.MQCFT_STRING_FILTER,
                CMQCFC.MQCFT_BYTE_STRING_FILTER):
        operator = draw(st.one_of(st.sampled_from(sorted(pcf.OPERATORS)), _long))
        if kind == CMQCFC.MQCFT_INTEGER_FILTER:
            return _structure(kind, (parameter, operator, draw(_long)), b"")
        if kind == CMQCFC.MQCFT_STRING_FILTER:
            return _structure(kind, (parameter, operator, 1208, len(text)), text)
        return _structure(kind, (parameter, operator, len(text)), text)
    if kind == CMQCFC.MQCFT_GROUP:
        members = draw(st.lists(_pcf_parameter(depth + 1), max_size=3)) if depth < 3 else []
        count = draw(st.one_of(st.just(len(members)), _long))
        return _structure(kind, (parameter, count), b"") + b"".join(members)
    return _structure(kind, (parameter,), text)


@st.composite
def _pcf_message(draw: st.DrawFn) -> bytes:
    parameters = draw(st.lists(_pcf_parameter(), max_size=5))
    count = draw(st.one_of(st.just(len(parameters)), _long))
    header = struct.pack("=9i", draw(st.sampled_from((CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFT_COMMAND_XR, 0))),
                         CMQCFC.MQCFH_STRUC_LENGTH, draw(st.sampled_from((1, 3, 0, 4))),
                         draw(st.sampled_from((CMQCFC.MQCMD_INQUIRE_Q, CMQCFC.MQCMD_ESCAPE,
                                               CMQCFC.MQCMD_CHANGE_Q, 0))),
                         1, CMQCFC.MQCFC_LAST, 0, 0, count)
    return header + b"".join(parameters)


@st.composite
def _pcf_nested_groups(draw: st.DrawFn) -> bytes:
    """Groups within groups, as deep as a command message of some 50 KiB can nest them."""
    depth = draw(st.integers(0, 3000))
    group = _structure(CMQCFC.MQCFT_GROUP, (draw(_long), 1), b"")
    header = struct.pack("=9i", CMQCFC.MQCFT_COMMAND, CMQCFC.MQCFH_STRUC_LENGTH, 1,
                         CMQCFC.MQCMD_INQUIRE_Q, 1, CMQCFC.MQCFC_LAST, 0, 0, 1)
    return header + group * depth + _structure(CMQCFC.MQCFT_INTEGER, (1, 1), b"")


pcf_messages = inputs(st.one_of(_pcf_message(), _pcf_nested_groups()))


def check_pcf(data: bytes) -> object:
    try:
        header = pcf.parse_header(data)
        return pcf.parse_parameters(data, header.parameter_count)
    except pcf.PCFError:
        return None


# --- the MQRFH2 decoder ------------------------------------------------------------------
_xml_bits = st.sampled_from((
    "<usr>", "</usr>", "<mcd>", "</mcd>", "<jms>", "</jms>", "<mqext>", "</mqext>", "<a>", "</a>",
    "<b dt='i4'>", "<b dt=\"r8\">", "</b>", "<c dt='bin.hex'>", "</c>", "<d xsi:nil='true'/>",
    "<e dt='boolean'>", "</e>", "<f dt='i8'>", "</f>", "<Msd>", "</Msd>", "<Dst>", "</Dst>",
    "&lt;", "&amp;", "&#x41;", "&#65;", "&#xFFFFFFFF;", "&#99999999999;", "&bogus;", "<", ">",
    "/>", " ", "'", "\"", "=", "1", "-1", "3.5e400", "nan", "ff", "true", "text", "\u00e9"))
_folders = st.lists(_xml_bits, max_size=24).map("".join)


@st.composite
def _rfh2(draw: st.DrawFn) -> bytes:
    order = draw(st.sampled_from("<>"))
    nv_ccsid = draw(st.sampled_from((1208, 0, 819, 1200, 13488, 37, -1)))
    codec = {1200: "utf-16", 13488: "utf-16", 819: "latin-1"}.get(nv_ccsid, "utf-8")
    if codec == "utf-16":
        codec += "-le" if order == "<" else "-be"
    chunks = b""
    for folder in draw(st.lists(_folders, max_size=4)):
        data = folder.encode(codec, "replace")
        data += b" " * _pad(len(data))
        chunks += struct.pack(order + "i", draw(st.one_of(st.just(len(data)), _long))) + data
    length = 36 + len(chunks)
    version = draw(st.sampled_from((CMQC.MQRFH_VERSION_2, 1, 3)))
    header = struct.pack(order + "4s4i8s2i", b"RFH ", version,
                         draw(st.one_of(st.just(length), _long)), 273, 1208,
                         draw(st.sampled_from((b"MQSTR   ", b"        ", b"MQHRF2  "))), 0, nv_ccsid)
    return header + chunks + draw(st.binary(max_size=16))


rfh2_data = inputs(_rfh2(), max_random=256)


def check_rfh2(data: bytes) -> object:
    try:
        return decode_rfh2(data)
    except PropertyError:
        return None


# --- MQGMO_CONVERT of the header chain ---------------------------------------------------
_CCSIDS = (1208, 819, 37, 500, 850, 1200, 0, -1, 65535, 1051, 437, 13488, 5348, 12345)
_ENCODINGS = (273, 546, 0, 1, 785, 0x7FFFFFFF, -1)
_FORMATS = (CMQC.MQFMT_DEAD_LETTER_HEADER, CMQC.MQFMT_XMIT_Q_HEADER, CMQC.MQFMT_MD_EXTENSION,
            CMQC.MQFMT_RF_HEADER, CMQC.MQFMT_RF_HEADER_2, CMQC.MQFMT_STRING, CMQC.MQFMT_NONE,
            b"MQPCF   ", b"\xff\xfe\x00abcde")


def _chars(draw: st.DrawFn, length: int) -> bytes:
    return draw(st.one_of(st.just(b" " * length), st.binary(min_size=length, max_size=length),
                          st.text("ABCXYZ.019 ", max_size=length).map(
                              lambda t: t.encode("ascii").ljust(length))))


@st.composite
def _header(draw: st.DrawFn, fmt: bytes, next_fmt: bytes, order: str) -> bytes:
    """One header of format `fmt` whose next part has format `next_fmt`."""
    encoding = draw(st.sampled_from(_ENCODINGS))
    ccsid = draw(st.sampled_from(_CCSIDS))
    if fmt == CMQC.MQFMT_DEAD_LETTER_HEADER:
        values = [b"DLH ", 1, draw(_long), _chars(draw, 48), _chars(draw, 48), encoding, ccsid,
                  next_fmt, draw(_long), _chars(draw, 28), _chars(draw, 8), _chars(draw, 8)]
        return struct.pack(order + DLH.struct.format, *values)
    if fmt == CMQC.MQFMT_MD_EXTENSION:
        values = [b"MDE ", 2, draw(st.one_of(st.just(72), _long)), encoding, ccsid, next_fmt,
                  0, _chars(draw, 24), 1, 0, 0, -1]
        return struct.pack(order + MDE.struct.format, *values)
    if fmt == CMQC.MQFMT_XMIT_Q_HEADER:
        md = []
        for name in MD1.names:
            if name == "StrucId":
                md.append(b"MD  ")
            elif name == "Format":
                md.append(next_fmt)
            elif name == "Encoding":
                md.append(encoding)
            elif name == "CodedCharSetId":
                md.append(ccsid)
            elif name in MD1.lengths:
                md.append(_chars(draw, MD1.lengths[name]))
            else:
                md.append(draw(st.sampled_from((0, 1, -1, 2**31 - 1))))
        return struct.pack(order + XQH.struct.format, b"XQH ", 1, _chars(draw, 48), _chars(draw, 48), *md)
    if fmt == CMQC.MQFMT_RF_HEADER:
        text = draw(st.text("abc XYZ=\"' ", max_size=20)).encode("latin-1")
        text += b" " * _pad(len(text))
        length = draw(st.one_of(st.just(32 + len(text)), _long))
        return struct.pack(order + RFH1.struct.format, b"RFH ", 1, length, encoding, ccsid,
                           next_fmt, 0) + text
    # MQRFH2: reuse the decoder's generator for the folders, in this chain's byte order
    folders = b""
    for folder in draw(st.lists(_folders, max_size=2)):
        data = folder.encode("utf-8")
        data += b" " * _pad(len(data))
        folders += struct.pack(order + "i", len(data)) + data
    length = draw(st.one_of(st.just(36 + len(folders)), _long))
    return struct.pack(order + RFH2.struct.format, b"RFH ", 2, length, encoding, ccsid, next_fmt,
                       0, draw(st.sampled_from((1208, 1200, 819, 0)))) + folders


@dataclass(frozen=True)
class Chain:
    """A message's data and its MD's Format/CCSID/Encoding, and the CCSID/Encoding asked for."""
    data: bytes
    fmt: bytes
    ccsid: int
    encoding: int
    wanted_ccsid: int
    wanted_encoding: int


@st.composite
def header_chains(draw: st.DrawFn, most: int = 5) -> Chain:
    formats = draw(st.lists(st.sampled_from(_FORMATS[:5]), max_size=most))
    last = draw(st.sampled_from(_FORMATS[5:]))
    order = draw(st.sampled_from("<>"))
    tail = draw(st.one_of(st.text(max_size=40).map(lambda t: t.encode("utf-8")), st.binary(max_size=40)))
    data = tail
    for fmt, next_fmt in reversed(list(zip(formats, [*formats[1:], last]))):
        data = draw(_header(fmt, next_fmt, order)) + data
    if draw(st.booleans()):
        data = draw(mutated(st.just(data)))
    encoding = 546 if order == "<" else 273
    return Chain(data, formats[0] if formats else last, draw(st.sampled_from(_CCSIDS)),
                 draw(st.sampled_from((encoding, *_ENCODINGS))), draw(st.sampled_from(_CCSIDS)),
                 draw(st.sampled_from(_ENCODINGS)))


def check_convert(chain: Chain) -> Converted:
    converted = convert_message(chain.data, chain.fmt, chain.ccsid, chain.encoding,
                                chain.wanted_ccsid, chain.wanted_encoding)
    assert isinstance(converted.data, bytes) and isinstance(converted.reason, int)
    return converted


# --- the channel frames and books (message_channels/link.py, sync.py) --------------------
_seqs = st.one_of(st.integers(-2, 5), st.sampled_from((999_999_999, 10**9, 2**62, -2**63)),
                  st.integers(-2**63, 2**63 - 1), st.booleans(), st.none(), st.text(max_size=4))
_luwids = st.one_of(st.text("0123456789ABCDEFabcdef", min_size=16, max_size=16),
                    st.just("0" * 16), st.just(""), st.text(max_size=20), st.integers(), st.none())
_msg_ids = st.one_of(st.binary(min_size=24, max_size=24), st.binary(max_size=30), st.text(max_size=24))
hellos = st.one_of(
    st.lists(values, max_size=7),
    st.tuples(st.text(max_size=20), st.text(max_size=48), _seqs, st.booleans(), _seqs,
              _seqs).map(list))
message_frames = st.one_of(
    st.lists(values, max_size=8).map(lambda rest: ["MSG", *rest]),
    st.tuples(_seqs, _msg_ids, st.binary(max_size=40), st.one_of(st.none(), st.lists(values, max_size=3)),
              st.one_of(st.booleans(), st.none())).map(lambda args: ["MSG", *args]))
end_frames = st.one_of(st.lists(values, max_size=4).map(lambda rest: ["END", *rest]),
                       st.tuples(_luwids, _seqs).map(lambda args: ["END", *args]),
                       st.lists(st.one_of(_luwids, _seqs), max_size=4).map(lambda rest: ["END", *rest]))
wire_records = st.one_of(values, st.tuples(_luwids, _seqs).map(list),
                         st.tuples(_luwids, _seqs, st.lists(_msg_ids, max_size=3)).map(list))


def _record_json(draw: st.DrawFn) -> bytes:
    doubt = draw(st.one_of(st.none(), st.fixed_dictionaries({
        "batch": _luwids, "first": _seqs, "last": _seqs,
        "messages": st.one_of(st.lists(st.tuples(st.binary(max_size=24).map(bytes.hex),
                                                 st.binary(max_size=16).map(bytes.hex)).map(list),
                                       max_size=3), st.integers(), st.text(max_size=8))})))
    body = draw(st.fixed_dictionaries(
        {"batch": _luwids, "seq": _seqs},
        optional={"role": st.sampled_from(("SDR", "RCVR", "", "XMIT")), "channel": st.text(max_size=8),
                  "reset": _seqs, "indoubt": st.just(doubt), "msgids": st.lists(st.text(max_size=8))}))
    return json.dumps(body).encode()


stored_records = inputs(st.composite(_record_json)(), max_random=512)


def check_hello(args: list) -> object:
    try:
        return link.check_hello(args), link.hello_reset(args, 999_999_999)
    except link.ProtocolError:
        return None


def check_message_frame(value: list) -> object:
    try:
        return link.check_message(value)
    except link.ProtocolError:
        return None


def check_end_frame(value: list) -> object:
    try:
        return link.check_end(value)
    except link.ProtocolError:
        return None


def check_wire_record(value: object) -> object:
    try:
        record = sync.SyncRecord.from_wire(value)
    except ValueError:
        return None
    assert 0 <= record.seq <= 999_999_999 and isinstance(record.batch, str)
    return record


def check_stored_record(data: bytes) -> object:
    try:
        return sync.parse_record(data)
    except ValueError:
        return None


# --- the transmission header (server/resolution/transmission.py) ---------------------------
@st.composite
def _transmission(draw: st.DrawFn) -> bytes:
    with_mde = draw(st.booleans())
    body_format = draw(st.sampled_from(_FORMATS[5:]))
    data = draw(_header(CMQC.MQFMT_XMIT_Q_HEADER,
                        CMQC.MQFMT_MD_EXTENSION if with_mde else body_format, "<"))
    if with_mde:
        data += draw(_header(CMQC.MQFMT_MD_EXTENSION, body_format, "<"))
    return data + draw(st.binary(max_size=40))


transmission_data = inputs(_transmission(), max_random=600)


def check_unwrap(data: bytes) -> object:
    """unwrap answers None for what is not a transmission message; what it does answer, the
    receiver puts: its MQMD must pack."""
    unwrapped = unwrap(data)
    if unwrapped is not None:
        queue, qmgr_name, md, body = unwrapped
        assert isinstance(queue, str) and isinstance(qmgr_name, str) and isinstance(body, bytes)
        MD.pack(md)
    return unwrapped


#: name -> (strategy, check): what bench/fuzz_long.py runs
TARGETS: dict[str, tuple[st.SearchStrategy, Callable[[object], object]]] = {
    "wire": (frame_bodies, check_frame),            # type: ignore[dict-item]
    "mqsc": (mqsc_texts, check_mqsc),               # type: ignore[dict-item]
    "pcf": (pcf_messages, check_pcf),               # type: ignore[dict-item]
    "rfh2": (rfh2_data, check_rfh2),                # type: ignore[dict-item]
    "convert": (header_chains(), check_convert),    # type: ignore[dict-item]
    "channel-hello": (hellos, check_hello),                  # type: ignore[dict-item]
    "channel-message": (message_frames, check_message_frame),  # type: ignore[dict-item]
    "channel-end": (end_frames, check_end_frame),          # type: ignore[dict-item]
    "sync-record-wire": (wire_records, check_wire_record),  # type: ignore[dict-item]
    "sync-record-stored": (stored_records, check_stored_record),  # type: ignore[dict-item]
    "transmission": (transmission_data, check_unwrap),     # type: ignore[dict-item]
}
