"""Choosing TLS 1.3 cipher suites on an `ssl.SSLContext`.

`SSLContext.set_ciphers` reaches only TLS 1.2 and below; Python has no call for OpenSSL's
SSL_CTX_set_ciphersuites (bpo-43007). A CipherSpec such as TLS_AES_128_GCM_SHA256 must
nevertheless be the only suite a client offers (else OpenSSL's preferred AES-256 suite is
negotiated and the CipherSpec check fails), and the queue manager must accept IBM's CCM
suites, which OpenSSL leaves off by default. So the call is made through ctypes on the
context's SSL_CTX, which the C object holds right after its Python header.

Only after proving that pointer right: OpenSSL's own SSL_CTX_get_options on it must give
the options Python reports for the context. Where that fails (another Python or OpenSSL),
nothing is changed and the CipherSpec check after the handshake still refuses a suite the
CipherSpec does not allow.
"""
from __future__ import annotations

import ctypes
import ssl

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
            _lib = library
        except (ImportError, OSError, AttributeError):
            _lib = None
    return _lib


def set_suites(context: ssl.SSLContext, suites: list[str]) -> bool:
    """Offer / accept only these TLS 1.3 suites; False when this Python cannot say so."""
    library = _library()
    if library is None or not suites:
        return False
    pointer = ctypes.c_void_p.from_address(id(context) + object.__basicsize__).value
    if not pointer or library.SSL_CTX_get_options(pointer) != int(context.options):
        return False
    return bool(library.SSL_CTX_set_ciphersuites(pointer, ":".join(suites).encode()))
