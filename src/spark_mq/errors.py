"""The connector's exceptions, for users to catch (defined in spark_mq.mq.errors)."""
from spark_mq.mq.errors import MQConnectorError, MQOptionError, UnknownOptionError

__all__ = ["MQConnectorError", "MQOptionError", "UnknownOptionError"]
