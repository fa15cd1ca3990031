"""Account rules: an account is made with one API key and one action to schedule, and a callback token.

Accounts come from the emulator only (the seed, ``POST /_emulator/accounts``, the NewAccount event); the platform
API has no account routes. This service also knows which account is the seeded one, which control requests use
when they name none, and keeps the seeded account's credentials, so that they are the same after every reset.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ..errors import ControlConflict, ControlNotFound
from ..models import ACTION_TYPE_PUSH_CAMPAIGN, API_KEY_TYPE_COMMON, SYSTEM_PRINCIPAL, Account, Action, Audit
from ..store import Store
from .api_keys import ApiKeyService, new_key, new_secret

SEED_ACCOUNT_NAME = "Demo account"
SEED_API_KEY_LABEL = "Seeded key"


class AccountNotFound(ControlNotFound):
    """No account with that id."""


class ApiKeyTaken(ControlConflict):
    """Another key already has the key value asked for."""


@dataclass(frozen=True)
class Seed:
    """Credentials and ids of an account the emulator created (the seed, or one made by control).

    ``resources`` holds the ids of what only the seeded account has (contact list, root group, short code channel,
    keyword, long code channel).
    """

    account_id: int
    api_key: str
    api_secret: str
    action_id: int
    api_key_id: int
    callback_token: str
    resources: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "account_id": self.account_id,
            "api_key": self.api_key,
            "api_secret": self.api_secret,
            "action_id": self.action_id,
            "api_key_id": self.api_key_id,
            "callback_token": self.callback_token,
            **self.resources,
        }


@dataclass(frozen=True)
class SeedCredentials:
    """The seeded account's key, secret and callback token: given or drawn once, kept across resets."""

    api_key: str
    api_secret: str
    callback_token: str

    @classmethod
    def new(cls, api_key: str | None = None, api_secret: str | None = None) -> SeedCredentials:
        return cls(api_key or new_key(), api_secret or new_secret(), str(uuid.uuid4()))


class AccountService:
    def __init__(self, store: Store, api_keys: ApiKeyService, seed_credentials: SeedCredentials) -> None:
        self._store = store
        self._api_keys = api_keys
        self._seed_credentials = seed_credentials
        self._seeded_id: int | None = None

    def create(
        self, name: str, api_key: str | None = None, api_secret: str | None = None, parent_id: int | None = None
    ) -> Seed:
        """Another account with its own API key (``api_key``/``api_secret`` when given) and one action."""
        return self._create(name, api_key, api_secret or new_secret(), f"{name} key", str(uuid.uuid4()), parent_id)

    def create_seeded(self) -> Seed:
        """The seeded account (its resources aside: see ``seed_data``); control requests default to it."""
        credentials = self._seed_credentials
        with self._store.lock:
            seed = self._create(
                SEED_ACCOUNT_NAME,
                credentials.api_key,
                credentials.api_secret,
                SEED_API_KEY_LABEL,
                credentials.callback_token,
                None,
            )
            self._seeded_id = seed.account_id
            return seed

    def control_account(self, account_id: int | None) -> Account:
        """For control requests: the given account (the seeded one when None), or AccountNotFound."""
        wanted = self._seeded_id if account_id is None else account_id
        account = None if wanted is None else self._store.tables.accounts.get(wanted)
        if account is None:
            raise AccountNotFound(f"account {wanted} does not exist")
        return account

    def add_api_key(self, account_id: int | None, type_id: int, label: str) -> dict[str, Any]:
        """For control: a key of any non-temporary type (Master included) for an account; AccountNotFound otherwise."""
        with self._store.lock:
            account = self.control_account(account_id)
            created = self._api_keys.store_key(
                account.id, type_id, label, Audit.new(self._store.now(), SYSTEM_PRINCIPAL)
            )
            return created.to_api(with_secret=True)

    def _create(
        self, name: str, key: str | None, secret: str, key_label: str, callback_token: str, parent_id: int | None
    ) -> Seed:
        with self._store.lock:
            if key is not None and self._api_keys.taken(key):
                raise ApiKeyTaken("an API key with that key already exists")
            now = self._store.now()
            account = Account(
                self._store.next_id("account"),
                name,
                Audit.new(now, SYSTEM_PRINCIPAL),
                parent_id=parent_id,
                callback_token=callback_token,
            )
            self._store.tables.accounts[account.id] = account
            api_key = self._api_keys.store_key(
                account.id, API_KEY_TYPE_COMMON, key_label, Audit.new(now, SYSTEM_PRINCIPAL), value=key, secret=secret
            )
            action = Action(
                self._store.next_id("action"), account.id, ACTION_TYPE_PUSH_CAMPAIGN, Audit.new(now, SYSTEM_PRINCIPAL)
            )
            self._store.tables.actions[action.id] = action
            return Seed(account.id, api_key.key, api_key.secret, action.id, api_key.id, callback_token)
