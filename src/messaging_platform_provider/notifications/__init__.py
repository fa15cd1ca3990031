"""
Notifiers: what Airflow's task and DAG callbacks, Deadline Alerts and human-in-the-loop operators take to tell
people that something happened. ``MessagingPlatformVoiceCallNotifier`` phones them (``notifications/voice_call.py``).
"""

from messaging_platform_provider.notifications.voice_call import (
    MessagingPlatformVoiceCallNotifier,
    send_messaging_platform_voice_call_notification,
)

__all__ = ["MessagingPlatformVoiceCallNotifier", "send_messaging_platform_voice_call_notification"]
