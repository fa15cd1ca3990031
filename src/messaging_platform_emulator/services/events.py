"""Simulated inbound events (spec section 6): what they name, and which callback records they go to.

An event (a keyword texted in, a dialog answer, a STOP, an incoming message, a new account) goes to every active
callback record of its type on the account that owns it (for NewAccount: the parent account), each with that
account's ``CallbackToken``. This service finds the account, channel, contact and keyword an event names
(refusing it with the status a control route answers), builds its fields, and picks the records, lowest id first;
``CallbackDelivery`` records and sends one delivery per record. Each event is built and handed over under the
store's lock, so what it names cannot change meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..clock import format_timestamp
from ..delivery import CallbackDelivery, FiredEvent
from ..delivery_record import CallbackEvent
from ..errors import ControlError
from ..models import Account, Callback, Channel, Keyword
from ..store import Store
from .accounts import AccountService, Seed
from .contacts import ContactService

KEYWORD, DIALOG, STOP, NEW_ACCOUNT, INCOMING_MESSAGE = 1, 3, 6, 8, 11

Answer = str | bool | int | float


class EventRefused(ControlError):
    """The event cannot fire as asked; ``status`` says why (404 unknown, 409 conflicting, 422 underspecified)."""


@dataclass(frozen=True)
class Sender:
    """Who an event comes from: an account (None: the seeded one), a channel (id or code; None: the account's
    first), and a contact (by id, or by phone number, which need not be a contact; neither: the first contact)."""

    account_id: int | None = None
    channel_id: str | int | None = None
    contact_id: int | None = None
    phone_number: str | None = None


@dataclass(frozen=True)
class DialogAnswer:
    """A contact's answer to a dialog question."""

    answer: Answer
    question_text: str | None = None
    question_campaign_id: int | None = None
    dialog_campaign_id: int | None = None
    subscription_id: int | None = 1


class EventService:
    def __init__(
        self, store: Store, accounts: AccountService, contacts: ContactService, delivery: CallbackDelivery
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._contacts = contacts
        self._delivery = delivery

    # -- events (each must be called on the event loop that is to run its deliveries) --------------

    def keyword(
        self, keyword: str, channel: str | int | None, contact_id: int | None, phone_number: str | None
    ) -> FiredEvent:
        """A keyword (name or id) texted to its channel: Keyword callbacks of the keyword's account."""
        with self._store.lock:
            found = self._keyword(keyword, channel)
            account = self._accounts.control_account(found.account_id)
            contact, number = self._contact(account, contact_id, phone_number)
            campaign = self._store.tables.campaigns.get(found.campaign_id or -1)
            fields = {
                "CampaignId": found.campaign_id,
                "ChannelId": found.channel_id,
                "ContactId": contact,
                "Keyword": found.name,
                "KeywordId": found.id,
                "PhoneNumber": number,
                "SubscriptionId": (campaign.subscription_id if campaign is not None else None) or 1,
            }
            return self._fire(account, KEYWORD, fields)

    def dialog(self, sender: Sender, answer: DialogAnswer) -> FiredEvent:
        with self._store.lock:
            account, channel, contact, number = self._sender(sender)
            fields = {
                "Answer": answer.answer,
                "QuestionCampaignId": answer.question_campaign_id,
                "QuestionText": answer.question_text,
                "ChannelId": channel.id if channel else None,
                "ContactId": contact,
                "PhoneNumber": number,
                "SubscriptionId": answer.subscription_id,
                "DialogCampaignId": answer.dialog_campaign_id,
                # Named by the spec for Dialog callbacks but left out of its listed shape (6.3).
                "ContactAccountId": account.id,
                "ContactAccountName": account.name,
            }
            return self._fire(account, DIALOG, fields)

    def stop(self, sender: Sender, subscription_id: int | None) -> FiredEvent:
        with self._store.lock:
            account, channel, contact, number = self._sender(sender)
            fields = {
                "ChannelId": channel.id if channel else None,
                "ContactId": contact,
                "PhoneNumber": number,
                "SubscriptionId": subscription_id,
            }
            return self._fire(account, STOP, fields)

    def incoming_message(self, sender: Sender, message: str) -> FiredEvent:
        with self._store.lock:
            account, channel, contact, number = self._sender(sender)
            fields = {
                "Message": message,
                "ChannelId": channel.id if channel else None,
                "ContactId": contact,
                "PhoneNumber": number,
                "ChannelCode": channel.code if channel else None,
                "AccountName": account.name,
            }
            return self._fire(account, INCOMING_MESSAGE, fields)

    def new_account(self, name: str, parent_id: int | None) -> tuple[FiredEvent, Seed]:
        """Create an account under ``parent_id`` (the seeded account when None) and fire NewAccount to the parent."""
        with self._store.lock:
            parent = self._accounts.control_account(parent_id)
            self._require_callbacks(parent)
            created = self._accounts.create(name, parent_id=parent.id)
            fired = self._fire(parent, NEW_ACCOUNT, {"Name": name, "ParentId": parent.id}, about=created.account_id)
            return fired, created

    # -- firing -------------------------------------------------------------------------------------

    def _fire(
        self, account: Account, callback_type: int, fields: dict[str, Any], about: int | None = None
    ) -> FiredEvent:
        """Send the event to every active callback record of ``callback_type`` on ``account``; its AccountId is
        ``about`` (default: ``account``). Caller holds the lock."""
        token = self._require_callbacks(account)
        records = self._receivers(account, callback_type)
        timestamp = format_timestamp(self._store.now())
        event = CallbackEvent(account.id if about is None else about, callback_type, timestamp, token, fields)
        return self._delivery.send(event, records)

    def _receivers(self, account: Account, callback_type: int) -> list[Callback]:
        """The fan-out: the account's active callback records of the type, lowest id first."""
        callbacks = self._store.tables.callbacks.values()
        return sorted(
            (c for c in callbacks if c.account_id == account.id and c.callback_type == callback_type and c.active),
            key=lambda c: c.id,
        )

    @staticmethod
    def _require_callbacks(account: Account) -> str:
        """The account's callback token (409 when it has none)."""
        if not account.callback_token:
            raise EventRefused(f"account {account.id} does not have callbacks enabled", 409)
        return account.callback_token

    # -- what an event names (caller holds the lock) ------------------------------------------------

    def _sender(self, sender: Sender) -> tuple[Account, Channel | None, int | None, str]:
        account = self._accounts.control_account(sender.account_id)
        channel = self._channel(account, sender.channel_id)
        contact, number = self._contact(account, sender.contact_id, sender.phone_number)
        return account, channel, contact, number

    def _channel(self, account: Account, channel: str | int | None) -> Channel | None:
        channels = [c for c in self._store.tables.channels.values() if c.account_id == account.id]
        if channel is None or channel == "":
            return channels[0] if channels else None
        for found in channels:
            if str(channel) in (str(found.id), found.code):
                return found
        raise EventRefused(f"account {account.id} has no channel {channel}", 404)

    def _contact(self, account: Account, contact_id: int | None, phone: str | None) -> tuple[int | None, str]:
        """The contact's id and phone number: the contact named, the one with the phone number (None when the
        number is no contact's), or the account's first."""
        if contact_id is not None:
            found = self._contacts.find(account.id, contact_id)
            if found is None:
                raise EventRefused(f"account {account.id} has no contact {contact_id}", 404)
            if phone and phone != found["PhoneNumber"]:
                raise EventRefused(f"contact {contact_id} has phone number {found['PhoneNumber']}", 409)
            return contact_id, str(found["PhoneNumber"])
        if phone:
            return self._contacts.id_with_phone(account.id, phone), phone
        first = self._contacts.first(account.id)
        if first is None:
            raise EventRefused(f"account {account.id} has no contacts: give phone_number", 422)
        return int(first["Id"]), str(first["PhoneNumber"])

    def _keyword(self, keyword: str, channel: str | int | None) -> Keyword:
        matches = [
            k
            for k in self._store.tables.keywords.values()
            if (keyword == str(k.id) or keyword.upper() == k.name.upper())
            and (channel in (None, "") or str(channel) in (str(k.channel_id), k.channel_code))
        ]
        if not matches:
            raise EventRefused(f"no keyword {keyword!r}" + (f" on channel {channel}" if channel else ""), 404)
        if len(matches) > 1:
            raise EventRefused(f"keyword {keyword!r} is on several channels: give channel_id", 409)
        found = matches[0]
        if not found.callback_required:
            raise EventRefused(f"keyword {found.name} does not have callbacks enabled (CallbackRequired)", 409)
        if found.campaign_id is None:
            raise EventRefused(f"keyword {found.name} is not attached to a campaign: no Keyword callback fires", 409)
        return found
