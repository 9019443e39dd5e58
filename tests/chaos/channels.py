"""Channel chaos: persistent messages with properties put on QMA for a queue on QMB, moved by
a sender/receiver channel pair while QMA, QMB and the channel are killed at random moments
(SIGKILL of a queue-manager process, restarted after a pause; or the channel's connection
cut mid-batch from the receiver's side), then every message counted on QMB: each exactly
once, its properties and context intact, nothing left on QMA's transmission queue.

A run is (seed, messages, kills): the seed decides the order and moments of the faults, so
a failing run is replayed from the line it prints. The short form is
tests/chaos/test_channel_chaos.py (in the README's test command), the long form
bench/channel_chaos.py (20,000 messages, at least 20 kills).

`secured=True` runs the same with the doors shut as a secured pair shuts them: QMB has users,
its receiver admits only a partner that presents QMA's certificate (SSLCIPH, SSLCAUTH
REQUIRED, SSLPEER) and names itself QMA (a QMGRMAP rule), and puts as `app`, which holds
+put and +setall on the target and +setall on QMB (so the context arrives intact); the
sender checks QMB's certificate in turn. Sequence numbers and the sender's own books are
always on.

`reports=True` also has each message ask for a COA report with its data (MQRO_COA_WITH_DATA,
ReplyToQ CHAOS.REPLY on QMB) and makes CHAOS.IN a streaming queue (STREAMQ(CHAOS.COPY)
STRMQOS(MUSTDUP)): the receiver's batch, its copies and its reports are one unit of work, so
each message's copy and its report are counted too, each exactly once."""
from __future__ import annotations

import random
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import ibmmq
from ibmmq import CMQC

from channel_topology import channel_name, define_receiver, define_sender, free_port
from channel_topology import depth as _depth
from spark_mq.embedded import EmbeddedQueueManager
from tls_keys import make_ca, make_certificate

FAULTS = ("kill_sender_qm", "kill_receiver_qm", "cut_channel")
TARGET = "CHAOS.IN"
COPY = "CHAOS.COPY"     # TARGET's stream queue (reports=True)
REPLY = "CHAOS.REPLY"   # where the COA reports arrive, on QMB (reports=True)
APPL = "channel-chaos"
CIPHER = "ANY_TLS12_OR_HIGHER"
USERS = {"app": "apppw", "admin": "adminpw"}


@dataclass
class ChannelChaos:
    tmp: Path
    seed: int
    messages: int
    kills: int
    batch_size: int = 50
    faults: list[str] = field(default_factory=list)
    context: tuple[bytes, bytes] = (b"", b"")   # UserIdentifier, PutApplName the puts got
    secured: bool = False
    reports: bool = False

    def line(self, verdict: str) -> str:
        return (f"channel chaos seed={self.seed} messages={self.messages} kills={self.kills} "
                f"batch={self.batch_size} secured={self.secured} reports={self.reports} "
                f"faults={','.join(self.faults)}: {verdict}")

    def run(self) -> tuple[bool, str]:
        rng = random.Random(self.seed)
        keys = self._key_repositories() if self.secured else {"QMA": None, "QMB": None}
        streamed = (f"DEFINE QLOCAL({COPY}) MAXDEPTH(999999999)\n"
                    f"DEFINE QLOCAL({REPLY}) MAXDEPTH(999999999)\n"
                    f"ALTER QLOCAL({TARGET}) STREAMQ({COPY}) STRMQOS(MUSTDUP)\n"
                    if self.reports else "")
        qmb = EmbeddedQueueManager(str(self.tmp / "QMB"), name="QMB", port=free_port(),
                                   mqsc=f"DEFINE QLOCAL({TARGET}) MAXDEPTH(999999999)\n"
                                        + streamed,
                                   users=USERS if self.secured else None,
                                   tls_key_repository=keys["QMB"]).start()
        qma = EmbeddedQueueManager(str(self.tmp / "QMA"), name="QMA", port=free_port(),
                                   tls_key_repository=keys["QMA"]).start()
        try:
            define_receiver(qmb, "QMA")
            tls = f" SSLCIPH({CIPHER}) SSLPEER('CN=QMB,O=Spark')" if self.secured else ""
            name = define_sender(qma, "QMB", int(qmb.port or 0),
                                 f"BATCHSZ({self.batch_size}){tls}")
            if self.secured:
                self._secure_receiver(qmb, name)
            qma.run_mqsc(f"ALTER QLOCAL(QMB) MAXDEPTH(999999999)\nSTOP CHANNEL({name})")
            self._put_all(qma)
            qma.run_mqsc(f"START CHANNEL({name})")
            for _ in range(self.kills):
                time.sleep(rng.uniform(0.1, 1.5))
                fault = rng.choice(FAULTS)
                self.faults.append(fault)
                self._inject(fault, qma, qmb, name, rng)
            return self._count(qma, qmb)
        finally:
            qma.stop()
            qmb.stop()

    def _key_repositories(self) -> dict[str, str | None]:
        """A certificate for each queue manager (CN=its name), by one CA both trust."""
        (self.tmp / "ca").mkdir()
        ca = make_ca(str(self.tmp / "ca"), "ChaosCA")
        stems: dict[str, str | None] = {}
        for qm in ("QMA", "QMB"):
            (self.tmp / "keys" / qm).mkdir(parents=True)
            stem = str(self.tmp / "keys" / qm / "key")
            make_certificate(stem, f"/O=Spark/CN={qm}", ca)
            shutil.copy(ca[0], stem + ".ca.pem")
            stems[qm] = stem
        return stems

    @staticmethod
    def _secure_receiver(qmb: EmbeddedQueueManager, name: str) -> None:
        qmb.run_mqsc(
            f"ALTER CHANNEL({name}) CHLTYPE(RCVR) SSLCIPH({CIPHER}) SSLCAUTH(REQUIRED) "
            "SSLPEER('CN=QMA,O=Spark')\n"
            f"SET CHLAUTH('{name}') TYPE(QMGRMAP) QMNAME('QMA') USERSRC(MAP) MCAUSER('app')\n"
            f"SET AUTHREC PROFILE('{TARGET}') OBJTYPE(QUEUE) PRINCIPAL('app') "
            "AUTHADD(PUT,GET,BROWSE,INQ,SETALL)\n"
            "SET AUTHREC OBJTYPE(QMGR) PRINCIPAL('app') AUTHADD(SETALL)")

    def _connect_b(self, qmb: EmbeddedQueueManager) -> ibmmq.QueueManager:
        if not self.secured:
            return ibmmq.connect("QMB", "DEV.APP.SVRCONN", qmb.conn_name)
        return ibmmq.connect("QMB", "DEV.APP.SVRCONN", qmb.conn_name, user="app",
                             password=USERS["app"])

    def _put_all(self, qma: EmbeddedQueueManager) -> None:
        conn = ibmmq.connect("QMA", "DEV.APP.SVRCONN", qma.conn_name)
        queue = ibmmq.Queue(conn, ibmmq.OD(ObjectName=TARGET, ObjectQMgrName="QMB"),
                            CMQC.MQOO_OUTPUT)
        props = ibmmq.MessageHandle(conn)
        for n in range(self.messages):
            props.properties.set("n", n, property_type=CMQC.MQTYPE_INT32)
            props.properties.set("tag", f"t{n % 7}")
            md = ibmmq.MD(Persistence=CMQC.MQPER_PERSISTENT)
            if self.reports:
                md.Report = CMQC.MQRO_COA_WITH_DATA
                md.ReplyToQ, md.ReplyToQMgr = REPLY.encode(), b"QMB"
            queue.put(b"%08d" % n, md,
                      ibmmq.PMO(Options=CMQC.MQPMO_SYNCPOINT, OriginalMsgHandle=props.msg_handle))
            self.context = (md.UserIdentifier, md.PutApplName)
            if n % 500 == 499:
                conn.commit()
        conn.commit()
        queue.close()
        conn.disconnect()

    def _inject(self, fault: str, qma: EmbeddedQueueManager, qmb: EmbeddedQueueManager,
                name: str, rng: random.Random) -> None:
        if fault == "cut_channel":
            # STOP on the receiving end closes its socket at once, mid-batch or not
            try:
                qmb.run_mqsc(f"STOP CHANNEL({name}) STATUS(INACTIVE)")
            except Exception:   # not running at this moment (the sender is retrying)
                pass
            return
        victim = qma if fault == "kill_sender_qm" else qmb
        victim.kill()
        time.sleep(rng.uniform(0.1, 1.0))
        victim.start()

    def _count(self, qma: EmbeddedQueueManager, qmb: EmbeddedQueueManager) -> tuple[bool, str]:
        a = ibmmq.connect("QMA", "DEV.APP.SVRCONN", qma.conn_name)
        b = self._connect_b(qmb)
        deadline = time.monotonic() + 120 + self.messages / 100
        while _depth(b, TARGET) < self.messages and time.monotonic() < deadline:
            time.sleep(0.2)
        bad: list[str] = []
        seen = self._drain(b, TARGET, bad)
        extra = ""
        if self.reports:
            copies = self._drain(b, COPY, bad)
            reports = self._drain(b, REPLY, bad, report=True)
            for what, counted in (("copy", copies), ("report", reports)):
                missing = [n for n in range(self.messages) if n not in counted]
                twice = [n for n, count in counted.items() if count > 1]
                if missing or twice:
                    bad.append(f"{what}: {len(missing)} missing {missing[:5]}, "
                               f"{len(twice)} twice {twice[:5]}")
            extra = f", {len(copies)} copies, {len(reports)} reports"
        left = _depth(a, "QMB")
        lost = [n for n in range(self.messages) if n not in seen]
        doubled = [n for n, count in seen.items() if count > 1]
        ok = not lost and not doubled and not bad and left == 0
        verdict = (f"{len(seen)} distinct of {self.messages}{extra}, lost {len(lost)} "
                   f"{lost[:5]}, doubled {len(doubled)} {doubled[:5]}, bad {bad[:3]}, "
                   f"{left} left on the transmission queue")
        return ok, self.line(verdict)

    def _drain(self, b: ibmmq.QueueManager, queue: str, bad: list[str],
               report: bool = False) -> dict[int, int]:
        """How often each message number is on `queue` (got off it), its checks in `bad`."""
        seen: dict[int, int] = {}
        source = ibmmq.Queue(b, queue, CMQC.MQOO_INPUT_SHARED)
        handle = ibmmq.MessageHandle(b)
        while True:
            md = ibmmq.MD()
            gmo = ibmmq.GMO(Options=CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_PROPERTIES_IN_HANDLE,
                            MsgHandle=handle.msg_handle)
            try:
                body = source.get(None, md, gmo)
            except ibmmq.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            n = int(body)
            seen[n] = seen.get(n, 0) + 1
            if md.Persistence != CMQC.MQPER_PERSISTENT:
                bad.append(f"{queue} {n}: not persistent")
            if report:
                if (md.MsgType, md.Feedback) != (CMQC.MQMT_REPORT, CMQC.MQFB_COA):
                    bad.append(f"report {n}: MsgType {md.MsgType} Feedback {md.Feedback}")
                continue
            if handle.properties.get("n") != n or handle.properties.get("tag") != f"t{n % 7}":
                bad.append(f"{queue} {n}: properties {handle.properties.get('n')!r}")
            if (md.UserIdentifier, md.PutApplName) != self.context:
                bad.append(f"{queue} {n}: context {md.UserIdentifier!r} {md.PutApplName!r}")
        source.close()
        return seen


__all__ = ["ChannelChaos", "FAULTS", "channel_name"]
