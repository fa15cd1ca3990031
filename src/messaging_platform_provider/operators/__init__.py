"""Every Messaging Platform operator, importable from one place (``docs/operators.md`` lists them)."""

from messaging_platform_provider.operators.api_keys import *  # noqa: F403
from messaging_platform_provider.operators.base import *  # noqa: F403
from messaging_platform_provider.operators.callbacks import *  # noqa: F403
from messaging_platform_provider.operators.campaigns import *  # noqa: F403
from messaging_platform_provider.operators.contacts import *  # noqa: F403
from messaging_platform_provider.operators.coupon_lists import *  # noqa: F403
from messaging_platform_provider.operators.rotation import *  # noqa: F403
from messaging_platform_provider.operators.schedules import *  # noqa: F403
from messaging_platform_provider.operators.voice_calls import *  # noqa: F403
