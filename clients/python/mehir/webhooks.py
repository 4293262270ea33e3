"""Verifying a price alert's webhook request.

``Mehir-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the alert's
secret>``. Checked on the raw bytes (not re-serialized JSON), in constant time
(``hmac.compare_digest``), refusing a ``t`` more than ``tolerance_seconds`` from the clock
(replays). Several ``v1`` entries are accepted; one must match.
"""

import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, Optional, Union

SIGNATURE_HEADER = "Mehir-Signature"
EVENT_ID_HEADER = "Mehir-Event-Id"

_HEX64 = re.compile(r"[0-9a-f]{64}")
_TIMESTAMP = re.compile(r"\d{1,12}")


class WebhookSignatureError(ValueError):
    """The signature does not verify (wrong secret, altered body, or a timestamp outside the tolerance)."""


def _bytes(body: Union[bytes, bytearray, str]) -> bytes:
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


def verify_signature(header: Optional[str], raw_body: Union[bytes, bytearray, str], secret: str, tolerance_seconds: int = 300, now: Optional[float] = None) -> bool:
    """Whether ``header`` (the ``Mehir-Signature`` value) signs ``raw_body`` with ``secret`` (``whsec_…``) within the tolerance.

    Example (Flask)::

        if not verify_signature(request.headers.get("Mehir-Signature"), request.get_data(), os.environ["MEHIR_WHSEC"]):
            abort(400)
    """
    if not header:
        return False
    parts = [part.split("=", 1) for part in header.split(",") if "=" in part]
    pairs = [(name.strip(), value.strip()) for name, value in parts]
    t = next((value for name, value in pairs if name == "t"), "")
    if not _TIMESTAMP.fullmatch(t):
        return False
    clock = time.time() if now is None else now
    if abs(clock - int(t)) > tolerance_seconds:
        return False
    expected = hmac.new(secret.encode("utf-8"), t.encode("ascii") + b"." + _bytes(raw_body), hashlib.sha256).hexdigest()
    matched = False
    for name, value in pairs:
        # compare_digest on every candidate (no early exit): the time taken says nothing of which matched.
        if name == "v1" and _HEX64.fullmatch(value) and hmac.compare_digest(expected, value):
            matched = True
    return matched


def parse_webhook_event(header: Optional[str], raw_body: Union[bytes, bytearray, str], secret: str, tolerance_seconds: int = 300, now: Optional[float] = None) -> Dict[str, Any]:
    """The event of a verified webhook request; raises WebhookSignatureError when the signature does not verify.

    Deduplicate on its ``id`` (= the ``Mehir-Event-Id`` header): a retry repeats it.
    """
    if not verify_signature(header, raw_body, secret, tolerance_seconds, now):
        raise WebhookSignatureError("The Mehir-Signature header does not verify (wrong secret, altered body, or a timestamp outside the tolerance).")
    event: Dict[str, Any] = json.loads(_bytes(raw_body).decode("utf-8"))
    return event
