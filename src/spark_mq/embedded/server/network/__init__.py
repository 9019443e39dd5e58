"""The network: the listener (listener.py, the accept loop), one session a client connection
(mqi_session.py, its frames and verbs), bindings (bindings.py, the Unix-domain socket of local
processes) and TLS (tls.py). Above administration; below the message channels and metrics."""
