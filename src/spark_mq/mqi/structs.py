"""Byte layouts of the MQI structures as IBM's `ibmmq` package packs them (native alignment).

One `Layout` per structure (MD, GMO, PMO, OD, CNO, CSP, STS, CD and the message-handle option
structures, the message headers MQGMO_CONVERT converts: MQDLH, MQMDE, MQXQH, MQRFH and
MQRFH2, and triggering's MQTM and MQTMC2), plus `text` for reading an MQCHAR field. The
embedded client receives these structures as bytes from `ibmmq` and hands some back, so
every field is listed in order; the queue manager reads and writes only some of them.
"""
from __future__ import annotations

import re
import struct
from collections.abc import Sequence
from typing import Any, TypeAlias

from spark_mq.mqi.constants import CMQC

#: One unpacked field: int for the i/q/b/P formats, bytes for s/c. Left as Any so callers can
#: use a field as the type its name implies without narrowing each one.
FieldValue: TypeAlias = Any


class Layout:
    """One MQI structure: field names in order and a precompiled struct.

    `fields` is "Name:fmt Name:fmt ...", with `struct` format characters in native alignment.
    """

    def __init__(self, fields: str) -> None:
        pairs = [item.split(":") for item in fields.split()]
        #: field names in structure order
        self.names: list[str] = [name for name, _ in pairs]
        self.struct = struct.Struct("".join(fmt for _, fmt in pairs))
        #: size in bytes, alignment padding included
        self.size: int = self.struct.size
        #: field name -> its position in the list `unpack` returns
        self.index: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        #: field name -> its byte offset in the structure
        self.offsets: dict[str, int] = {}
        #: field name -> length, for the fixed-length byte and character fields ("48s")
        self.lengths: dict[str, int] = {name: int(fmt[:-1]) for name, fmt in pairs
                                        if fmt.endswith("s")}
        offset_fmt = ""
        for name, fmt in pairs:
            # the offset of a field is the size of everything before it plus its alignment
            self.offsets[name] = struct.calcsize(offset_fmt + fmt) - struct.calcsize(fmt)
            offset_fmt += fmt

    def unpack(self, data: bytes) -> list[FieldValue]:
        """Every field of the structure at the start of `data`, in order (a list, so that
        callers can change fields and `pack` it again)."""
        return list(self.struct.unpack_from(data))

    def pack(self, values: Sequence[FieldValue]) -> bytes:
        return self.struct.pack(*values)

    def get(self, data: bytes, name: str) -> FieldValue:
        """One field of the structure at the start of `data`."""
        return self.unpack(data)[self.index[name]]


MD = Layout(
    "StrucId:4s Version:i Report:i MsgType:i Expiry:i Feedback:i Encoding:i CodedCharSetId:i "
    "Format:8s Priority:i Persistence:i MsgId:24s CorrelId:24s BackoutCount:i ReplyToQ:48s "
    "ReplyToQMgr:48s UserIdentifier:12s AccountingToken:32s ApplIdentityData:32s PutApplType:i "
    "PutApplName:28s PutDate:8s PutTime:8s ApplOriginData:4s GroupId:24s MsgSeqNumber:i Offset:i "
    "MsgFlags:i OriginalLength:i")
MD_V1_SIZE = MD.offsets["GroupId"]
#: MQMD_DEFAULT, version 2: a new message's descriptor, and a get's that matches any message
_MD_DEFAULT: dict[str, FieldValue] = dict(zip(MD.names, [
    b"MD  ", CMQC.MQMD_VERSION_2, CMQC.MQRO_NONE, CMQC.MQMT_DATAGRAM, CMQC.MQEI_UNLIMITED,
    CMQC.MQFB_NONE, CMQC.MQENC_NATIVE, CMQC.MQCCSI_Q_MGR, b"", CMQC.MQPRI_PRIORITY_AS_Q_DEF,
    CMQC.MQPER_PERSISTENCE_AS_Q_DEF, b"", b"", 0, b"", b"", b"", b"", b"", CMQC.MQAT_NO_CONTEXT,
    b"", b"", b"", b"", b"", 1, 0, CMQC.MQMF_NONE, CMQC.MQOL_UNDEFINED]))


def default_md(**fields: FieldValue) -> list[FieldValue]:
    """The fields of MQMD_DEFAULT in order, those named here changed (for MD.pack)."""
    unknown = fields.keys() - _MD_DEFAULT.keys()
    if unknown:
        raise KeyError(f"not MQMD fields: {sorted(unknown)}")
    return list({**_MD_DEFAULT, **fields}.values())

GMO = Layout(
    "StrucId:4s Version:i Options:i WaitInterval:i Signal1:i Signal2:i ResolvedQName:48s "
    "MatchOptions:i GroupStatus:b SegmentStatus:b Segmentation:b Reserved1:c MsgToken:16s "
    "ReturnedLength:i Reserved2:i MsgHandle:q")

PMO = Layout(
    "StrucId:4s Version:i Options:i Timeout:i Context:i KnownDestCount:i UnknownDestCount:i "
    "InvalidDestCount:i ResolvedQName:48s ResolvedQMgrName:48s RecsPresent:i PutMsgRecFields:i "
    "PutMsgRecOffset:i ResponseRecOffset:i PutMsgRecPtr:P ResponseRecPtr:P OriginalMsgHandle:q "
    "NewMsgHandle:q Action:i PubLevel:i")

OD = Layout(
    "StrucId:4s Version:i ObjectType:i ObjectName:48s ObjectQMgrName:48s DynamicQName:48s "
    "AlternateUserId:12s RecsPresent:i KnownDestCount:i UnknownDestCount:i InvalidDestCount:i "
    "ObjectRecOffset:i ResponseRecOffset:i ObjectRecPtr:P ResponseRecPtr:P AlternateSecurityId:40s "
    "ResolvedQName:48s ResolvedQMgrName:48s ObjectStringVSPtr:P ObjectStringVSOffset:i "
    "ObjectStringVSBufSize:i ObjectStringVSLength:i ObjectStringVSCCSID:i SelectionStringVSPtr:P "
    "SelectionStringVSOffset:i SelectionStringVSBufSize:i SelectionStringVSLength:i "
    "SelectionStringVSCCSID:i ResObjectStringVSPtr:P ResObjectStringVSOffset:i "
    "ResObjectStringVSBufSize:i ResObjectStringVSLength:i ResObjectStringVSCCSID:i ResolvedType:i "
    "pad:4s")

CNO = Layout(
    "StrucId:4s Version:i Options:i ClientConnOffset:i ClientConnPtr:P ConnTag:128s SSLConfigPtr:P "
    "SSLConfigOffset:i ConnectionId:24s SecurityParmsOffset:i SecurityParmsPtr:P CCDTUrl:P "
    "CCDTUrlOffset:i CCDTUrlLength:i Reserved:q ApplName:28s Reserved2:i BalanceParmsPtr:P "
    "BalanceParmsOffset:i Reserved3:i")

CSP = Layout(
    "StrucId:4s Version:i AuthenticationType:i Reserved1:i CSPUserIdPtr:P CSPUserIdOffset:i "
    "CSPUserIdLength:i Reserved2:q CSPPasswordPtr:P CSPPasswordOffset:i CSPPasswordLength:i "
    "Reserved3:q InitialKeyPtr:P InitialKeyOffset:i InitialKeyLength:i Reserved4:q TokenPtr:P "
    "TokenOffset:i TokenLength:i")
#: the longest authentication token (MQCSP_AUTH_ID_TOKEN) IBM MQ takes: its "Requirements for
#: authentication tokens" (MQCSP TokenLength)
MAX_TOKEN_LENGTH = 8192

STS = Layout(
    "StrucId:4s Version:i CompCode:i Reason:i PutSuccessCount:i PutWarningCount:i "
    "PutFailureCount:i ObjectType:i ObjectName:48s ObjectQMgrName:48s ResolvedObjectName:48s "
    "ResolvedQMgrName:48s ObjectStringVSPtr:P ObjectStringVSOffset:i ObjectStringVSBufSize:i "
    "ObjectStringVSLength:i ObjectStringVSCCSID:i SubNameVSPtr:P SubNameVSOffset:i "
    "SubNameVSBufSize:i SubNameVSLength:i SubNameVSCCSID:i OpenOptions:i SubOptions:i")

CD = Layout(
    "ChannelName:20s Version:i ChannelType:i TransportType:i Desc:64s QMgrName:48s XmitQName:48s "
    "ShortConnectionName:20s MCAName:20s ModeName:8s TpName:64s BatchSize:i DiscInterval:i "
    "ShortRetryCount:i ShortRetryInterval:i LongRetryCount:i LongRetryInterval:i SecurityExit:128s "
    "MsgExit:128s SendExit:128s ReceiveExit:128s SeqNumberWrap:i MaxMsgLength:i PutAuthority:i "
    "DataConversion:i SecurityUserData:32s MsgUserData:32s SendUserData:32s ReceiveUserData:32s "
    "UserIdentifier:12s Password:12s MCAUserIdentifier:12s MCAType:i ConnectionName:264s "
    "RemoteUserIdentifier:12s RemotePassword:12s MsgRetryExit:128s MsgRetryUserData:32s "
    "MsgRetryCount:i MsgRetryInterval:i HeartbeatInterval:i BatchInterval:i "
    "NonPersistentMsgSpeed:i StrucLength:i ExitNameLength:i ExitDataLength:i MsgExitsDefined:i "
    "SendExitsDefined:i ReceiveExitsDefined:i MsgExitPtr:P MsgUserDataPtr:P SendExitPtr:P "
    "SendUserDataPtr:P ReceiveExitPtr:P ReceiveUserDataPtr:P ClusterPtr:P ClustersDefined:i "
    "NetworkPriority:i LongMCAUserIdLength:i LongRemoteUserIdLength:i LongMCAUserIdPtr:P "
    "LongRemoteUserIdPtr:P MCASecurityId:40s RemoteSecurityId:40s SSLCipherSpec:32s "
    "SSLPeerNamePtr:P SSLPeerNameLength:i SSLClientAuth:i KeepAliveInterval:i LocalAddress:48s "
    "BatchHeartbeat:i HdrCompList:8s MsgCompList:64s CLWLChannelRank:i CLWLChannelPriority:i "
    "CLWLChannelWeight:i ChannelMonitoring:i ChannelStatistics:i SharingConversations:i "
    "PropertyControl:i MaxInstances:i MaxInstancesPerClient:i ClientChannelWeight:i "
    "ConnectionAffinity:i BatchDataLimit:i UseDLQ:i DefReconnect:i CertificateLabel:64s "
    "SPLProtection:i SPLPad:4s QuantumSafeAlgorithm:i QuantumSafeRequired:i")

#: MQSCO up to version 5 (the TLS options of MQCONNX); later versions only add fields after these
SCO = Layout(
    "StrucId:4s Version:i KeyRepository:256s CryptoHardware:256s AuthInfoRecCount:i "
    "AuthInfoRecOffset:i AuthInfoRecPtr:P KeyResetCount:i FipsRequired:i "
    "EncryptionPolicySuiteB:16s CertificateValPolicy:i CertificateLabel:64s")

SIMPLE = Layout("StrucId:4s Version:i Options:i")  # CMHO, DMHO, DMPO
SMPO = Layout("StrucId:4s Version:i Options:i ValueEncoding:i ValueCCSID:i")
IMPO = Layout(
    "StrucId:4s Version:i Options:i RequestedEncoding:i RequestedCCSID:i ReturnedEncoding:i "
    "ReturnedCCSID:i Reserved1:i ReturnedNameVSPtr:P ReturnedNameVSOffset:i "
    "ReturnedNameVSBufSize:i ReturnedNameVSLength:i ReturnedNameVSCCSID:i TypeString:8s")
PD = Layout("StrucId:4s Version:i Options:i Support:i Context:i CopyOptions:i")

#: The message headers MQGMO_CONVERT converts field by field (they travel in message data, so
#: their integers are in the Encoding of what precedes them: pack them with an explicit byte
#: order, `struct.Struct(">" + DLH.struct.format)`; none of them has alignment padding).
#: MQDLH, the dead-letter header (172 bytes)
DLH = Layout(
    "StrucId:4s Version:i Reason:i DestQName:48s DestQMgrName:48s Encoding:i CodedCharSetId:i "
    "Format:8s PutApplType:i PutApplName:28s PutDate:8s PutTime:8s")
#: MQMDE, the message-descriptor extension (72 bytes)
MDE = Layout(
    "StrucId:4s Version:i StrucLength:i Encoding:i CodedCharSetId:i Format:8s Flags:i GroupId:24s "
    "MsgSeqNumber:i Offset:i MsgFlags:i OriginalLength:i")
#: MQMD version 1 (324 bytes): the MQMD's fields before GroupId
MD1 = Layout(" ".join(f"{name}:{fmt}" for name, fmt in zip(
    MD.names, re.findall(r"\d*[A-Za-z?]", MD.struct.format)) if MD.offsets[name] < MD_V1_SIZE))
#: MQXQH, the transmission-queue header: 104 bytes, then the message's MQMD version 1 (its fields
#: named "MsgDesc.<field>"), 428 bytes in all
XQH = Layout("StrucId:4s Version:i RemoteQName:48s RemoteQMgrName:48s " + " ".join(
    f"MsgDesc.{name}:{fmt}" for name, fmt in zip(MD1.names, re.findall(r"\d*[A-Za-z?]", MD1.struct.format))))
#: MQRFH version 1 (32 bytes) and version 2 (36 bytes): the fixed parts; NameValueString /
#: the NameValueLength-NameValueData pairs follow, up to StrucLength
RFH1 = Layout("StrucId:4s Version:i StrucLength:i Encoding:i CodedCharSetId:i Format:8s Flags:i")
RFH2 = Layout("StrucId:4s Version:i StrucLength:i Encoding:i CodedCharSetId:i Format:8s Flags:i "
              "NameValueCCSID:i")
#: MQTM, the trigger message the queue manager puts on an initiation queue (684 bytes)
TM = Layout("StrucId:4s Version:i QName:48s ProcessName:48s TriggerData:64s ApplType:i "
            "ApplId:256s EnvData:128s UserData:128s")
#: MQTMC2, what a trigger monitor passes to the program it starts (732 characters): the
#: MQTM's fields as characters (Version and ApplType too) and the queue manager's name
TMC2 = Layout("StrucId:4s Version:4s QName:48s ProcessName:48s TriggerData:64s ApplType:4s "
              "ApplId:256s EnvData:128s UserData:128s QMgrName:48s")
assert DLH.size == CMQC.MQDLH_LENGTH_1 and MDE.size == CMQC.MQMDE_LENGTH_2
assert TM.size == CMQC.MQTM_LENGTH_1 and TMC2.size == CMQC.MQTMC2_LENGTH_2
assert MD1.size == 324 and XQH.size == CMQC.MQXQH_LENGTH_1
assert RFH1.size == CMQC.MQRFH_STRUC_LENGTH_FIXED and RFH2.size == CMQC.MQRFH_STRUC_LENGTH_FIXED_2

# The sizes ibmmq's structures have on 64-bit Linux: a mismatch means a typo in a layout above.
assert MD.size == 364 and GMO.size == 112 and PMO.size == 184 and OD.size == 424
assert CNO.size == 272 and CSP.size == 104 and STS.size == 280 and IMPO.size == 64


def blank_padded(raw: bytes, length: int) -> bytes:
    """An MQCHAR field as MQ hands it back: MQ reads a NUL as the end of the value (C
    applications pass NUL-terminated strings, `ibmmq` packs short values NUL padded) and
    returns the value padded with blanks to the field's length."""
    end = raw.find(b"\0")
    if end < 0 and len(raw) == length:
        return raw
    return raw[:length if end < 0 else end].ljust(length, b" ")


def text(raw: bytes) -> str:
    """An MQCHAR field as text: up to the first NUL, blanks stripped."""
    end = raw.find(b"\0")
    if end >= 0:
        raw = raw[:end]
    return raw.decode("latin-1").strip()
