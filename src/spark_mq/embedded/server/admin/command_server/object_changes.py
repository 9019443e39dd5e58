"""Create, Copy, Change and Delete of an object kept as a name and its attributes (namelists,
processes): the same four commands, checked the same way (MQRCCF_OBJECT_ALREADY_EXISTS
without MQIACF_REPLACE, an unknown name for the others) and applied through the object's own
`apply`, as its MQSC DEFINE/ALTER/DELETE are."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spark_mq.embedded.server.admin.command_server.pcf import PCFError
from spark_mq.embedded.server.admin.command_server.request import Reply, Request, unknown_object
from spark_mq.mqi.constants import CMQCFC


@dataclass(frozen=True)
class ObjectChanges:
    """The four commands of one kind of object: `exists(qm, name)`, `apply(qm, verb, name,
    attributes, replace=, like=)` and `attributes(request)` are the kind's; the parameters
    name the object, and Copy's source and target."""
    exists: Callable[[Any, str], bool]
    apply: Callable[..., Any]
    attributes: Callable[[Request], dict[str, Any]]
    name: int
    copy_from: int
    copy_to: int

    def _apply(self, request: Request, verb: str, name: str, replace: bool = False,
               like: str | None = None) -> list[Reply]:
        try:
            self.apply(request.qm, verb, name, self.attributes(request), replace=replace, like=like)
        except ValueError:
            raise PCFError(CMQCFC.MQRCCF_COMMAND_FAILED) from None
        return [Reply()]

    def _replace(self, request: Request, name: str) -> bool:
        replace = request.integer(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO) == CMQCFC.MQRP_YES
        if self.exists(request.qm, name) and not replace:
            raise PCFError(CMQCFC.MQRCCF_OBJECT_ALREADY_EXISTS)
        return replace

    def _existing(self, request: Request, parameter: int) -> str:
        name = request.string(parameter)
        if not self.exists(request.qm, name):
            raise unknown_object()
        return name

    def create(self, request: Request) -> list[Reply]:
        """DEFINE ... [REPLACE]."""
        name = request.string(self.name)
        return self._apply(request, "DEFINE", name, replace=self._replace(request, name))

    def copy(self, request: Request) -> list[Reply]:
        """DEFINE to LIKE(from) [REPLACE]."""
        source = self._existing(request, self.copy_from)
        target = request.string(self.copy_to)
        return self._apply(request, "DEFINE", target, replace=self._replace(request, target),
                           like=source)

    def change(self, request: Request) -> list[Reply]:
        """ALTER."""
        return self._apply(request, "ALTER", self._existing(request, self.name))

    def delete(self, request: Request) -> list[Reply]:
        """DELETE."""
        return self._apply(request, "DELETE", self._existing(request, self.name))
