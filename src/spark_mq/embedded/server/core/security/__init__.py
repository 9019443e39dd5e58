"""Security as IBM MQ's developer container has it: connection authentication (CONNAUTH and
AUTHINFO), channel authentication rules (CHLAUTH) and authority records (AUTHREC), enforced
on MQCONN, MQOPEN and MQPUT1 (runs in the queue-manager process, under its lock).

Nothing here is enforced unless the queue manager was started with users
(`USER:PASSWORD[:GROUP,GROUP]` lines in `--users-file`/`--users-stdin`,
`EmbeddedQueueManager(users=...)`): without them
(`QueueManagerState.users is None`) every connection may do everything, as before this
package existed. The definitions are still kept, shown and stored either way, so the same
MQSC scripts load on both.

Modules (paths from server/; the administrative ones are on the administration floor):

    core/security/security_state.py  one queue manager's security state, users' groups, store and recovery
    core/security/authinfo.py        AUTHINFO objects and the CONNAUTH the queue manager runs with
    core/security/chlauth.py         CHLAUTH rules: SET/DISPLAY CHLAUTH and which rule a connection meets
    core/security/authority.py       authority records: SET/DELETE/DISPLAY AUTHREC (MQSC and PCF share them)
    core/security/admission.py       MQCONN and a receiving channel's hello: who the connection (the
                                     message channel agent) runs as, or MQRC_NOT_AUTHORIZED
    core/security/token_config.py    qm.ini's AuthToken stanza: the token issuers' keys, UserClaim,
                                     Audience, ClockSkew
    core/security/tokens.py          authentication tokens (JWT, MQCSP_AUTH_ID_TOKEN) checked as IBM
                                     MQ checks them
    core/security/checks.py          MQOPEN/MQPUT1: the authorities the open options need
    admin/security/command_checks.py PCF commands: the authorities the command server checks
    admin/security/mqsc_commands.py  the MQSC syntax of the security commands, checked when a script is parsed
    admin/security/security_mqsc.py  applying those commands and runmqsc's DISPLAY output for them

Users and groups: each user entry may name its groups after a second colon; without them
`admin` (and `mqm`) are in the group `mqm`, any other user in `mqclient`, as in IBM's
developer container. Members of `mqm` are the queue manager's administrators: they hold
every authority, and the default CHLAUTH rule `BLOCKUSER('*MQADMIN')` keeps them off every
channel but DEV.ADMIN.SVRCONN, receiving message channels included: a receiver needs an
MCAUSER (its own or a rule's) that is not an administrator, and that user's authority
(+put, +setall) on the queues its partner sends to.
"""
