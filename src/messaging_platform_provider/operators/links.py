"""
Links from a task to what it created, in the platform's web app: Airflow's operator extra links, a button on the
task instance in Airflow's UI. Each kind of page has its URL template in a connection extra
(``hooks/web_app_urls.py``); a connection without it gives no link.

Airflow asks for a link in the worker, each time a try of the task ends or defers, and stores it as XCom under the
link's own key; the UI shows that XCom. The link is made from the task's ``Id`` XCom (what the create pushes beside
its return value) and the task's account, so only a try that succeeded, or a create-and-wait that deferred (it
pushes its ids before it defers), has a link. Kept light: DAG files import
this module with the operators; the connection is read only when a link is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, cast

from airflow.sdk import BaseOperatorLink

from messaging_platform_provider.hooks.web_app_urls import web_app_link

if TYPE_CHECKING:
    from airflow.sdk import BaseOperator
    from airflow.sdk.types import TaskInstanceKey

    from messaging_platform_provider.operators.base import MessagingPlatformBaseOperator

__all__ = [
    "MessagingPlatformCampaignLink",
    "MessagingPlatformPushVoiceCallLink",
    "MessagingPlatformScheduleLink",
    "MessagingPlatformWebAppLink",
]


class MessagingPlatformWebAppLink(BaseOperatorLink):
    """
    Base of the links to the web app: the page of the resource whose id the task pushed under ``Id``, from the URL
    template in the connection extra ``url_extra``; an empty link (no button) when the extra is not set or nothing
    was created.
    """

    #: the connection extra that holds the URL template of this kind of page
    url_extra: ClassVar[str]
    #: the placeholder that the task's ``Id`` XCom fills
    id_placeholder: ClassVar[str]

    def get_link(self, operator: BaseOperator, *, ti_key: TaskInstanceKey) -> str:
        task = cast("MessagingPlatformBaseOperator", operator)
        try:
            return self.link(task, ti_key)
        except Exception as error:  # a link is never worth failing a task for, nor skipping its callbacks (3.0)
            task.log.warning("No %r link: %s", self.name, error)
            return ""

    def link(self, task: MessagingPlatformBaseOperator, ti_key: TaskInstanceKey) -> str:
        """
        The link, read from the task's ``Id`` XCom and its connection; empty when the try failed or the connection
        has no template for the page.
        """
        # In the worker ``ti_key`` is the running task instance, whose state is the try's outcome. Only a try that
        # succeeded, or a create-and-wait that deferred, has pushed its ``Id``: asking for a missing XCom would log
        # an error in every failed try.
        if getattr(ti_key, "state", None) not in ("success", "deferred"):
            return ""
        settings = task.hook.settings  # already read by the try, unless it resumed from a deferral
        template = settings.web_app_urls.get(self.url_extra)
        if template is None:
            return ""
        from airflow.sdk.execution_time.xcom import XCom

        created_id = XCom.get_value(ti_key=ti_key, key="Id")
        if created_id is None:
            return ""
        account = task.account if task.account is not None else settings.account_id
        return web_app_link(self.url_extra, template, {"account_id": account, **self.ids(task, created_id)})

    def ids(self, task: MessagingPlatformBaseOperator, created_id: Any) -> dict[str, Any]:
        """The placeholders' values besides ``account_id``: the created id, and what the task addressed."""
        return {self.id_placeholder: created_id}


class MessagingPlatformCampaignLink(MessagingPlatformWebAppLink):
    """The created campaign (extra ``web_app_campaign_url``; placeholders ``account_id``, ``campaign_id``)."""

    name = "Campaign in web app"
    url_extra = "web_app_campaign_url"
    id_placeholder = "campaign_id"


class MessagingPlatformScheduleLink(MessagingPlatformWebAppLink):
    """
    The created schedule (extra ``web_app_schedule_url``; placeholders ``account_id``, ``action_id``,
    ``schedule_id``).
    """

    name = "Schedule in web app"
    url_extra = "web_app_schedule_url"
    id_placeholder = "schedule_id"

    def ids(self, task: MessagingPlatformBaseOperator, created_id: Any) -> dict[str, Any]:
        return {**super().ids(task, created_id), "action_id": getattr(task, "action_id", None)}


class MessagingPlatformPushVoiceCallLink(MessagingPlatformWebAppLink):
    """The created push voice call action (extra ``web_app_push_voice_call_url``; placeholders ``account_id``,
    ``action_id``)."""

    name = "Push voice call in web app"
    url_extra = "web_app_push_voice_call_url"
    id_placeholder = "action_id"
