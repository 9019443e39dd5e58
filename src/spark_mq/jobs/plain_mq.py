"""A plain ibmmq connection on the driver, for what a job does outside Spark: putting the
quickstart's messages and reading queue depths.

Deliberately not the connector: the quickstart shows that messages put by any MQ
application flow through Spark. It connects the way the connector does (same options,
same transport choice, same error descriptions)."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class PlainMQ:
    """One connection: persistent puts under syncpoint, queue depths. A context manager."""

    def __init__(self, options: dict[str, str]):
        from spark_mq.mq.connecting import connect, load_ibmmq
        from spark_mq.options import parse_connection
        parsed = parse_connection(options)
        self.ibmmq = load_ibmmq(parsed.transport)
        self.qmgr = connect(parsed, "connecting the job's own MQ connection")

    def put_many(self, queue: str, payloads: Iterable[bytes], commit_every: int = 1000,
                 on_progress: Callable[[int], object] | None = None) -> int:
        """Persistent puts under syncpoint, committed every `commit_every` messages; returns the count."""
        ibmmq = self.ibmmq
        handle = self._open(queue, ibmmq.CMQC.MQOO_OUTPUT | ibmmq.CMQC.MQOO_FAIL_IF_QUIESCING)
        pmo = ibmmq.PMO(Options=ibmmq.CMQC.MQPMO_SYNCPOINT | ibmmq.CMQC.MQPMO_NEW_MSG_ID
                        | ibmmq.CMQC.MQPMO_ASYNC_RESPONSE | ibmmq.CMQC.MQPMO_FAIL_IF_QUIESCING)
        count = 0
        try:
            for payload in payloads:
                md = ibmmq.MD(Persistence=ibmmq.CMQC.MQPER_PERSISTENT, Format=ibmmq.CMQC.MQFMT_STRING)
                handle.put(payload, md, pmo)
                count += 1
                if count % commit_every == 0:
                    self._commit(f"committing puts to {queue}")
                    if on_progress:
                        on_progress(count)
            self._commit(f"committing puts to {queue}")
        except ibmmq.MQMIError as exc:
            self._backout()
            raise _describe(exc, f"putting message {count + 1} on {queue}") from exc
        finally:
            handle.close()
        return count

    def depth(self, queue: str) -> int:
        """The queue's current depth (committed messages and uncommitted puts)."""
        ibmmq = self.ibmmq
        handle = self._open(queue, ibmmq.CMQC.MQOO_INQUIRE)
        try:
            return int(handle.inquire(ibmmq.CMQC.MQIA_CURRENT_Q_DEPTH))
        except ibmmq.MQMIError as exc:
            raise _describe(exc, f"inquiring the depth of {queue}") from exc
        finally:
            handle.close()

    def max_uncommitted(self) -> int:
        """The queue manager's MAXUMSGS: the most operations in one unit of work."""
        from spark_mq.mq.producer import queue_manager_limits
        return queue_manager_limits(self.qmgr, self.ibmmq)[0]

    def close(self) -> None:
        from spark_mq.mq.connecting import disconnect_quietly
        disconnect_quietly(self.ibmmq, self.qmgr)

    def _open(self, queue: str, options: int) -> Any:
        try:
            return self.ibmmq.Queue(self.qmgr, queue, options)
        except self.ibmmq.MQMIError as exc:
            raise _describe(exc, f"opening queue {queue}") from exc

    def _commit(self, action: str) -> None:
        try:
            self.qmgr.commit()
        except self.ibmmq.MQMIError as exc:
            raise _describe(exc, action) from exc

    def _backout(self) -> None:
        from spark_mq.mq.connecting import quietly
        quietly(self.ibmmq, "backing out the job's puts", self.qmgr.backout)

    def __enter__(self) -> PlainMQ:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _describe(exc: Exception, action: str) -> Exception:
    from spark_mq.mq.exceptions import describe
    return describe(exc, action)
