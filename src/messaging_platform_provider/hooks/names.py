"""
The names a Messaging Platform connection goes by: its type, the type's former name, and the connection used unless
a task names another. Alone in a module that imports nothing, so that operators and sensors can name the default
connection while a DAG file is parsed without loading the hooks or the client.
"""

#: No ``_`` in it: Airflow writes a connection's type as a URI scheme whenever it reads one (its secrets cache),
#: and a scheme with ``_`` makes it log "Connection schemes (type: ...) shall not contain '_' according to RFC3986"
#: each time. A ``-`` does not help: Airflow turns it into ``_`` when it parses a URI or a JSON connection.
CONN_TYPE = "messagingplatform"
#: The type's former name. Connections saved with it are read as before and keep their connection form (a hook
#: of their own, ``MessagingPlatformLegacyTypeHook``), but every read of one still logs that warning: change their
#: type to ``CONN_TYPE`` (docs/hook.md, "The connection type's former name").
LEGACY_CONN_TYPE = "messaging_platform"
DEFAULT_CONN_ID = "messaging_platform_default"
