"""Airflow connection URI for an emulator (built and read here without importing Airflow).

``messagingplatform://KEY:SECRET@/?__extra__=...``: Airflow takes the scheme as the connection type, the API key
as login and the secret as password; ``__extra__`` holds the extras as one JSON object (percent-encoded), in which
``account_id`` stays the number ``1001``. Written as query values (``?base_url=...&account_id=1001``) the Task SDK
would keep it the text ``"1001"``, and every read of the connection would log "Skipping masking for a secret as
it's too short (<5 chars)": Airflow offers each text extra to its log masker. The type has no ``_``: Airflow logs
a warning about a ``_`` in a connection type on every read of one.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit

#: The Airflow connection type, which a URI gives as its scheme.
CONN_TYPE = "messagingplatform"
EXTRA_KEY = "__extra__"
MASK = "***"


def connection_uri(base_url: str, api_key: str, api_secret: str, account_id: int, *, hide_secret: bool = False) -> str:
    secret = MASK if hide_secret else quote(api_secret, safe="")
    extras = json.dumps({"base_url": base_url, "account_id": account_id}, separators=(",", ":"))
    return f"{CONN_TYPE}://{quote(api_key, safe='')}:{secret}@/?{urlencode({EXTRA_KEY: extras})}"


def uri_extras(uri: str) -> dict[str, Any]:
    """The extras of a connection URI, as Airflow reads them: its ``__extra__`` JSON, else its query values."""
    query = dict(parse_qsl(urlsplit(uri).query, keep_blank_values=True))
    if EXTRA_KEY not in query:
        return dict(query)
    extras = json.loads(query[EXTRA_KEY])
    if not isinstance(extras, dict):
        raise ValueError(f"the connection URI's {EXTRA_KEY} is not a JSON object")
    return extras
