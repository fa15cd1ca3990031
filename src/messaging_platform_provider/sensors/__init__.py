"""Sensors of the Messaging Platform provider."""

from messaging_platform_provider.sensors.callback import MessagingPlatformCallbackSensor
from messaging_platform_provider.sensors.schedule import MessagingPlatformScheduleSensor

__all__ = ["MessagingPlatformCallbackSensor", "MessagingPlatformScheduleSensor"]
