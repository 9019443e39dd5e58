"""MQ knowledge shared by the connector and the embedded queue manager.

constants   CMQC, IBM's MQI constants loaded from the ibmmq package, and reason-code names
structs     byte layouts of the MQI structures (MQMD, MQGMO, MQPMO, MQOD, ...) as ibmmq packs them
properties  message-property rules (names, MQSETMP/MQINQMP values) and the MQRFH2 codec
selector    the message-selector grammar: compile_selector() and the Selector it returns

Tables and pure functions only: no server state, and nothing imports ibmmq's C extension.
"""
