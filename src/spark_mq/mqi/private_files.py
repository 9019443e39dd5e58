"""Secrets files (a users file, a password file): read only when nobody but their owner, this
user, may read or change them, as ssh refuses a private key others can read. Shared by the
queue manager's start (--users-file) and the client tools and jobs (--password-file)."""
from __future__ import annotations

import os
import stat


class PrivateFileError(ValueError):
    """Why a secrets file was not read; the caller puts the option's name in front."""


def read_private(path: str) -> str:
    """The file's text; PrivateFileError when it cannot be read or others may read it."""
    try:
        with open(path, encoding="utf-8") as handle:
            found = os.fstat(handle.fileno())
            if found.st_uid != os.getuid():
                raise PrivateFileError(f"{path}: another user owns it; use a file of your own, "
                                       f"the owner's only (chmod 600)")
            if found.st_mode & 0o077:
                mode = stat.S_IMODE(found.st_mode)
                raise PrivateFileError(
                    f"{path}: permissions {mode:04o} are too open: group or others may read or "
                    f"change it; make it the owner's only: chmod 600 {path}")
            return handle.read()
    except OSError as exc:
        raise PrivateFileError(f"{path}: {exc.strerror or exc}") from None
