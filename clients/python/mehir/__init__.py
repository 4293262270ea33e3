"""The mehir price API client: standard library only, Python 3.9 or later.

    from mehir import Client, MehirError
    mehir = Client("http://localhost:8080", api_key="sk_test_…")
    prices = mehir.get_prices(barcode="7291252436027")
"""

from ._client import Client, __version__
from .errors import MehirError
from .webhooks import EVENT_ID_HEADER, SIGNATURE_HEADER, WebhookSignatureError, parse_webhook_event, verify_signature

__all__ = ["Client", "MehirError", "verify_signature", "parse_webhook_event", "WebhookSignatureError", "SIGNATURE_HEADER", "EVENT_ID_HEADER", "__version__"]
