"""Security's administration: the MQSC syntax of the security commands (mqsc_commands.py),
applying them (security_mqsc.py), and the authorities the command server checks
(command_checks.py, subscription_checks.py)."""
