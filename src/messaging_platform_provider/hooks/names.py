"""
The names a ``messaging_platform`` connection goes by: its type, and the connection used unless a task names
another. Alone in a module that imports nothing, so that operators and sensors can name the default connection
while a DAG file is parsed without loading the hooks or the client.
"""

CONN_TYPE = "messaging_platform"
DEFAULT_CONN_ID = "messaging_platform_default"
