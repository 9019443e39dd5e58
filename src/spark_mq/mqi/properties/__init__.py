"""Message-property semantics of IBM MQ, as pure functions for the embedded queue manager.

The server keeps a message's properties as a list of `Property(name, type, value)`: `name` is the
canonical name (see `validate_name`), `type` a CMQC.MQTYPE_* value and `value` a Python value
(bool, int, float, str, bytes, or None for MQTYPE_NULL). This module holds the rules that do not
depend on any server state: name validation, MQSETMP value coercion, MQINQMP type conversion and
wildcard matching, the MAXPROPL size, and the MQRFH2 form used when properties travel in the
message body (`encode_rfh2` / `decode_rfh2`). Failures raise `PropertyError` with the MQRC.

This package holds the public API; the rules live in `_base` (Property, PropertyValue,
PropertyError), `_names` (name rules, canonical names, wildcards), `_values` (MQSETMP
coercion, MQINQMP conversion, MAXPROPL size) and `_rfh2` (the MQRFH2 codec).

Sources: IBM MQ docs "Property names", "Property name restrictions", "MQSETMP", "MQINQMP",
"Message properties and message length", "Mapping property data types to MQRFH2 data types",
"MQRFH2" / "NameValueData", and the reason codes MQRC_PROPERTY_NAME_ERROR,
MQRC_PROP_CONV_NOT_SUPPORTED, MQRC_PROP_NUMBER_FORMAT_ERROR, MQRC_PROPERTY_TYPE_ERROR and
MQRC_PROPERTY_NAME_LENGTH_ERR.

Choices where the docs leave room (each one is marked where it is made):
  * Canonical names follow what MQINQMP returns: "usr." is dropped, "jms.*"/"mcd.Type" become the
    JMS header names (jms.Exp -> JMSExpiration) and "mqps.*"/"mqpse.*" the MQ names
    (mqps.Top -> MQTopicString). Other folder-qualified names ("mcd.Msd", "jms.Foo") stay as given.
  * Names starting "mq" (any case) are MQ's: allowed only for the MQ-defined names above, for
    "<mqps|mqpse|mqext>.<one component>", and for names starting "mq_usr" (exempt in IBM's rules).
  * Each dot-separated component must be a Java identifier, because components become XML
    element names in the MQRFH2. Control and format characters (including NUL) are refused for
    the same reason.
  * MQSETMP with a ValueLength that does not fit the value (or MQVL_NULL_TERMINATED for a byte
    string) fails with MQRC_BUFFER_LENGTH_ERROR; an MQINQMP string that holds a number too big
    for the requested type fails with MQRC_PROP_NUMBER_FORMAT_ERROR.
  * RFH2 folders written and read: mcd, jms, mqps, mqpse, mqext and usr. Other folders (psc, ...)
    are skipped on decode; JMS names that live only in the MQMD (JMSMessageID, JMSRedelivered,
    JMSXAppID, JMSXDeliveryCount, JMSXUserID) and Root.MQMD.* names are not written to an RFH2.
"""
from __future__ import annotations

from spark_mq.mqi.properties._base import Property, PropertyError, PropertyValue
from spark_mq.mqi.properties._names import WildcardMatcher, location, validate_name
from spark_mq.mqi.properties._rfh2 import (
    MQFMT_RF_HEADER_2,
    NAME_VALUE_CCSID,
    RFH2_STRUC_ID,
    DecodedRFH2,
    decode_rfh2,
    encode_rfh2,
)
from spark_mq.mqi.properties._values import coerce_value, convert_for_inquiry, properties_length

__all__ = [
    "Property", "PropertyValue", "PropertyError",
    "validate_name", "WildcardMatcher", "location",
    "coerce_value", "convert_for_inquiry", "properties_length",
    "RFH2_STRUC_ID", "MQFMT_RF_HEADER_2", "NAME_VALUE_CCSID", "DecodedRFH2", "encode_rfh2", "decode_rfh2",
]
