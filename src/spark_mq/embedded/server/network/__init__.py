"""The network: the listener (accept loop and client sessions), bindings (in-process
connections) and TLS. Above administration; below the message channels and metrics."""
