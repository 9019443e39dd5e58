"""TLS as IBM MQ does it, shared by the embedded queue manager and its client.

Both ends use Python's `ssl` module (OpenSSL); what this package holds is the MQ side of it:

    cipher_specs.py        IBM's CipherSpec names (SSLCIPH, MQCD.SSLCipherSpec): which
                           protocol versions and cipher suites each allows, and whether a
                           negotiated session satisfies one
    key_repository.py      where a key repository stem (SSLKEYR, MQSCO.KeyRepository,
                           MQSSLKEYR) and a certificate label (CERTLABL) find PEM files
    distinguished_names.py certificate DNs and IBM's SSLPEER / SSLPeerName patterns
    channel_names.py       the channel name carried in the TLS server name (SNI)
    tls13.py               choosing TLS 1.3 cipher suites and key-exchange groups, which
                           the ssl module cannot do
    quantum_safe.py        the quantum-safe key exchange an MQCD of version 13 asks for
"""
