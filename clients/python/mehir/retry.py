"""When a 429 or 503 is tried again (the same rule as the TypeScript client).

After the ``Retry-After`` the server sent, at most ``max_attempts`` tries in all, and only while
the waits add up to at most ``max_wait_seconds`` (a wait past that, such as a spent monthly
quota's, fails at once instead of waiting in vain).
"""

import email.utils
import time
from typing import Optional

RETRIED = (429, 503)
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_MAX_WAIT_SECONDS = 30.0


def retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    """Seconds a ``Retry-After`` value asks for (delta-seconds or an HTTP date); None when absent or unreadable."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return int(text)
    try:
        date = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if date is None:
        return None
    seconds = date.timestamp() - (time.time() if now is None else now)
    return max(0, int(seconds + 0.999))


def retry_delay(status: int, retry_after: Optional[int], attempt: int, waited: float, max_attempts: int, max_wait_seconds: float) -> Optional[int]:
    """The seconds to wait before trying again, or None to fail now."""
    if status not in RETRIED or retry_after is None or attempt >= max_attempts:
        return None
    return retry_after if waited + retry_after <= max_wait_seconds else None
