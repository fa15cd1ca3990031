"""Airflow connection URI for an emulator (built here without importing Airflow).

``messaging-platform://KEY:SECRET@/?base_url=...&account_id=...``: Airflow turns the scheme into conn type
``messaging_platform``; login is the API key, password the secret, and the query becomes the extras
(``airflow.sdk.Connection`` keeps ``account_id`` as the string ``"1001"``; ``airflow.models.Connection``
parses it to the int ``1001``).
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

SCHEME = "messaging-platform"
MASK = "***"


def connection_uri(base_url: str, api_key: str, api_secret: str, account_id: int, *, hide_secret: bool = False) -> str:
    secret = MASK if hide_secret else quote(api_secret, safe="")
    query = urlencode({"base_url": base_url, "account_id": str(account_id)})
    return f"{SCHEME}://{quote(api_key, safe='')}:{secret}@/?{query}"
