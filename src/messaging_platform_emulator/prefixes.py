"""The emulator's two URL prefixes: the platform API it stands in for, and its own control routes."""

API_PREFIX = "/api/v2.1"
CONTROL_PREFIX = "/_emulator"
