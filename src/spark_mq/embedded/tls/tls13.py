"""Choosing TLS 1.3 cipher suites and key-exchange groups on an `ssl.SSLContext`.

`SSLContext.set_ciphers` reaches only TLS 1.2 and below; Python has no call for OpenSSL's
SSL_CTX_set_ciphersuites (bpo-43007), nor, before 3.13, for SSL_CTX_set1_groups_list. A
CipherSpec such as TLS_AES_128_GCM_SHA256 must nevertheless be the only suite a client
offers (else OpenSSL's preferred AES-256 suite is negotiated and the CipherSpec check
fails), the queue manager must accept IBM's CCM suites, which OpenSSL leaves off by default,
and a client asking for quantum-safe key exchange must offer the ML-KEM groups
(tls/quantum_safe.py). So the calls are made through ctypes on the context's SSL_CTX, which
the C object holds right after its Python header.

Only after proving that pointer right: OpenSSL's own SSL_CTX_get_options on it must give
the options Python reports for the context. Where that fails (another Python or OpenSSL),
nothing is changed and the callers fall back: the CipherSpec check after the handshake
still refuses a suite the CipherSpec does not allow.
"""
from __future__ import annotations

import ctypes
import ssl

_SSL_CTRL_SET_GROUPS_LIST = 92   # SSL_CTX_set1_groups_list is this SSL_CTX_ctrl (ssl.h)

_lib: ctypes.CDLL | None = None
_tried = False


def _library() -> ctypes.CDLL | None:
    """libssl's functions through the _ssl module; None where they cannot be had."""
    global _lib, _tried
    if not _tried:
        _tried = True
        try:
            import _ssl
            library = ctypes.CDLL(_ssl.__file__)   # resolves libssl's symbols through _ssl
            library.SSL_CTX_set_ciphersuites.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
            library.SSL_CTX_set_ciphersuites.restype = ctypes.c_int
            library.SSL_CTX_get_options.argtypes = [ctypes.c_void_p]
            library.SSL_CTX_get_options.restype = ctypes.c_uint64
            library.SSL_CTX_ctrl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_long,
                                             ctypes.c_char_p]
            library.SSL_CTX_ctrl.restype = ctypes.c_long
            library.ERR_clear_error.argtypes = []
            library.ERR_clear_error.restype = None
            _lib = library
        except (ImportError, OSError, AttributeError):
            _lib = None
    return _lib


def _context_pointer(context: ssl.SSLContext) -> int | None:
    """The context's SSL_CTX, proven right (see the docstring); None when it cannot be."""
    library = _library()
    if library is None:
        return None
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if not pointer or library.SSL_CTX_get_options(pointer) != int(context.options):
        return None
    return pointer


def set_suites(context: ssl.SSLContext, suites: list[str]) -> bool:
    """Offer / accept only these TLS 1.3 suites; False when this Python cannot say so."""
    pointer = _context_pointer(context)
    if pointer is None or not suites:
        return False
    assert _lib is not None   # _context_pointer found it
    return bool(_lib.SSL_CTX_set_ciphersuites(pointer, ":".join(suites).encode()))


def set_groups(context: ssl.SSLContext, groups: list[str]) -> bool:
    """Offer / accept only these key-exchange groups (OpenSSL's names), in this order; False
    when this Python cannot say so or its OpenSSL does not know one of them (the context is
    then left as it was)."""
    pointer = _context_pointer(context)
    if pointer is None or not groups:
        return False
    assert _lib is not None
    done = _lib.SSL_CTX_ctrl(pointer, _SSL_CTRL_SET_GROUPS_LIST, 0, ":".join(groups).encode())
    if done != 1:
        _lib.ERR_clear_error()   # else the failure lingers for the next handshake to report
    return done == 1
