"""Sensors of the Messaging Platform provider."""

from messaging_platform_provider.sensors.schedule import MessagingPlatformScheduleSensor

__all__ = ["MessagingPlatformScheduleSensor"]
