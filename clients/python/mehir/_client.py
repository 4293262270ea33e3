"""The client: HTTP with the standard library (urllib), the retry rule, and pages."""

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, Iterator, Mapping, Optional

from ._operations import Operations
from .errors import MehirError
from .retry import DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_WAIT_SECONDS, retry_after_seconds, retry_delay

__version__ = "0.1.0"


class Client(Operations):
    """The mehir API: one method per operation, in snake case, returning the answer's body as a dict.

    >>> mehir = Client("http://localhost:8080", api_key=os.environ["MEHIR_KEY"])
    >>> mehir.get_prices(barcode="7291252436027")["data"]["prices"][0]["price_ils"]

    Error answers raise :class:`MehirError`. A 429 or 503 is tried again after its ``Retry-After``:
    at most ``max_attempts`` tries in all (1 never retries), and only while the waits add up to at
    most ``max_wait_seconds``. Arguments left as None are not sent.
    """

    def __init__(self, base_url: str, api_key: Optional[str] = None, *, timeout: float = 30.0, max_attempts: int = DEFAULT_MAX_ATTEMPTS, max_wait_seconds: float = DEFAULT_MAX_WAIT_SECONDS) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.max_wait_seconds = max_wait_seconds

    def _call(self, operation_id: str, method: str, path: str, path_params: Dict[str, Any], query: Dict[str, Any], body: Any, has_body: bool, accept: Optional[str]) -> Any:
        for name, value in path_params.items():
            if value is None or value == "":
                raise TypeError(f"{operation_id}: `{name}` is required")
            path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
        given = {name: _query_value(value) for name, value in query.items() if value is not None}
        url = self.base_url + path + ("?" + urllib.parse.urlencode(given) if given else "")
        headers = {"User-Agent": f"mehir-python/{__version__}"}
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        if accept:
            headers["Accept"] = accept
        data = None
        if has_body:
            if isinstance(body, dict):
                body = {name: value for name, value in body.items() if value is not None}
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        waited = 0.0
        attempt = 1
        while True:
            status, answer_headers, raw = self._send(urllib.request.Request(url, data=data, headers=headers, method=method))
            if 200 <= status < 300:
                return _success_body(status, answer_headers, raw)
            retry_after = retry_after_seconds(answer_headers.get("Retry-After"))
            delay = retry_delay(status, retry_after, attempt, waited, self.max_attempts, self.max_wait_seconds)
            if delay is None:
                raise MehirError(status, _error_body(answer_headers, raw), dict(answer_headers.items()), retry_after)
            time.sleep(delay)
            waited += delay
            attempt += 1

    def _send(self, request: urllib.request.Request) -> "tuple[int, Any, bytes]":
        """The answer's status, headers and body; an error status is an answer too, not an exception."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers, error.read()

    def _items(self, page: Callable[..., Dict[str, Any]], args: Dict[str, Any]) -> Iterator[Dict[str, Any]]:
        cursor = None
        while True:
            answer = page(**args, cursor=cursor)
            yield from answer["data"]
            cursor = answer["meta"].get("next_cursor")
            if not cursor:
                return


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _is_json(headers: Mapping[str, str]) -> bool:
    media = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def _success_body(status: int, headers: Mapping[str, str], raw: bytes) -> Any:
    """JSON parsed, other media types as bytes, no body as None."""
    if status in (202, 204) or not raw:
        return None
    return json.loads(raw.decode("utf-8")) if _is_json(headers) else raw


def _error_body(headers: Mapping[str, str], raw: bytes) -> Any:
    text = raw.decode("utf-8", errors="replace")
    if _is_json(headers):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text
