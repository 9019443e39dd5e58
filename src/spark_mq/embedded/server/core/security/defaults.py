"""The security definitions a new embedded queue manager starts with (MQSC text, run once
with the rest of mqsc_attributes.DEFAULT_MQSC): crtmqm's, then IBM's developer container's
(github.com/ibm-messaging/mq-container, its dev MQSC template and docs/developer-config.md).

They only take effect on a queue manager started with users (see core/security/__init__.py).
The container makes the application channel's password optional unless an application
password is set; the embedded queue manager's users always have passwords, so the rule of
DEV.APP.SVRCONN requires one (CHCKCLNT(REQUIRED)), as the container does with MQ_APP_PASSWORD.
The authority records are granted to the group mqclient, in which the container puts its
user `app` (docs/developer-config.md).
"""
from __future__ import annotations

#: crtmqm's connection authentication and channel authentication rules
SYSTEM_SECURITY_MQSC: str = """\
* Security of a new queue manager (crtmqm)
DEFINE AUTHINFO('SYSTEM.DEFAULT.AUTHINFO.IDPWOS') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) +
       CHCKLOCL(OPTIONAL) ADOPTCTX(NO)
ALTER QMGR CONNAUTH('SYSTEM.DEFAULT.AUTHINFO.IDPWOS') CHLAUTH(ENABLED)
SET CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) +
    DESCR('Default rule to disable all SYSTEM channels') ACTION(REPLACE)
SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('*MQADMIN') +
    DESCR('Default rule to disallow privileged users') ACTION(REPLACE)
SET CHLAUTH('SYSTEM.ADMIN.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) +
    DESCR('Default rule to allow MQ Explorer access') ACTION(REPLACE)
"""

#: the developer container's: admins on DEV.ADMIN.SVRCONN only, applications on DEV.APP.SVRCONN
DEVELOPER_SECURITY_MQSC: str = """\
* Developer connection authentication
DEFINE AUTHINFO('DEV.AUTHINFO') AUTHTYPE(IDPWOS) CHCKCLNT(REQDADM) CHCKLOCL(OPTIONAL) +
       ADOPTCTX(YES) REPLACE
ALTER QMGR CONNAUTH('DEV.AUTHINFO')
REFRESH SECURITY(*) TYPE(CONNAUTH)

* Developer channel authentication rules
SET CHLAUTH('*') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(NOACCESS) +
    DESCR('Back-stop rule - Blocks everyone') ACTION(REPLACE)
SET CHLAUTH('DEV.APP.SVRCONN') TYPE(ADDRESSMAP) ADDRESS('*') USERSRC(CHANNEL) +
    CHCKCLNT(REQUIRED) DESCR('Allows connection via APP channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(BLOCKUSER) USERLIST('nobody') +
    DESCR('Allows admins on ADMIN channel') ACTION(REPLACE)
SET CHLAUTH('DEV.ADMIN.SVRCONN') TYPE(USERMAP) CLNTUSER('admin') USERSRC(CHANNEL) +
    DESCR('Allows admin user to connect via ADMIN channel') ACTION(REPLACE)

* Developer authority records
SET AUTHREC GROUP('mqclient') OBJTYPE(QMGR) AUTHADD(CONNECT,INQ)
SET AUTHREC PROFILE('DEV.**') GROUP('mqclient') OBJTYPE(QUEUE) AUTHADD(BROWSE,GET,INQ,PUT)
SET AUTHREC PROFILE('DEV.**') GROUP('mqclient') OBJTYPE(TOPIC) AUTHADD(PUB,SUB)
SET AUTHREC PROFILE('DEV.APP.MODEL.QUEUE') GROUP('mqclient') OBJTYPE(QUEUE) +
    AUTHADD(BROWSE,DSP,GET,INQ,PUT)
"""
