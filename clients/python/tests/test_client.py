"""The Python client's tests.

Offline (always): the retry rule against a small HTTP server on loopback, and signature
verification. Against a running mehir server (when MEHIR_BASE_URL and MEHIR_API_KEY — a Pro key of
an account whose webhooks may go to loopback — are set, as test/clients/clients.test.ts does):
operations, an error, pages, and a signed test event delivered to a receiver on loopback.

    cd clients/python && MEHIR_BASE_URL=http://127.0.0.1:8080 MEHIR_API_KEY=sk_live_… python3 -m unittest -v
"""

import hashlib
import hmac
import http.server
import json
import os
import threading
import time
import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple

from mehir import Client, MehirError, WebhookSignatureError, parse_webhook_event, verify_signature
from mehir.retry import retry_after_seconds

BARCODE = "7291252436027"  # חלב תנובה 3% 1 ליטר in the demo data


class _Loopback:
    """An HTTP server on 127.0.0.1 in a thread, answering each request with ``answer(method, path, headers, body)`` (header names in lower case)."""

    def __init__(self, answer: Callable[[str, str, Dict[str, str], bytes], Tuple[int, Dict[str, str], bytes]]) -> None:
        self.requests: List[Tuple[str, str, Dict[str, str], bytes]] = []
        self.received = threading.Event()
        loopback = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _handle(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = (self.command, self.path, {name.lower(): value for name, value in self.headers.items()}, body)
                loopback.requests.append(request)
                status, headers, payload = answer(*request)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                loopback.received.set()

            do_GET = do_POST = _handle

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _problem(status: int, code: str, retry_after: Optional[str]) -> Tuple[int, Dict[str, str], bytes]:
    headers = {"Content-Type": "application/problem+json"}
    if retry_after is not None:
        headers["Retry-After"] = retry_after
    body = {"type": f"/docs/errors#{code}", "title": code, "status": status, "detail": "try later", "code": code, "request_id": "req_fake"}
    return status, headers, json.dumps(body).encode()


OK = (200, {"Content-Type": "application/json"}, json.dumps({"data": [], "meta": {"request_id": "req_ok", "livemode": True}}).encode())


class RetryTest(unittest.TestCase):
    def serve(self, answers: List[Tuple[int, Dict[str, str], bytes]]) -> _Loopback:
        queue = list(answers)
        server = _Loopback(lambda *request: queue.pop(0) if len(queue) > 1 else queue[0])
        self.addCleanup(server.close)
        return server

    def test_a_429_is_tried_again_after_retry_after(self) -> None:
        # Like the real server, the fake refuses a retry that comes before the Retry-After it asked for.
        first_at: List[float] = []

        def answer(*request: Any) -> Tuple[int, Dict[str, str], bytes]:
            if not first_at:
                first_at.append(time.monotonic())
                return _problem(429, "rate_limited", "1")
            return OK if time.monotonic() - first_at[0] >= 1.0 else _problem(400, "too_early", None)

        server = _Loopback(answer)
        self.addCleanup(server.close)
        answer_body = Client(server.url, "sk_test_x").list_chains()
        self.assertEqual(answer_body["meta"]["request_id"], "req_ok")
        self.assertEqual(len(server.requests), 2)
        self.assertEqual(server.requests[1][2].get("x-api-key"), "sk_test_x")

    def test_at_most_three_tries(self) -> None:
        server = self.serve([_problem(503, "data_not_ready", "0")])
        with self.assertRaises(MehirError) as raised:
            Client(server.url, "sk_test_x").list_chains()
        self.assertEqual(len(server.requests), 3)
        self.assertEqual((raised.exception.status, raised.exception.code, raised.exception.retry_after), (503, "data_not_ready", 0))

    def test_a_wait_past_the_budget_fails_at_once(self) -> None:
        server = self.serve([_problem(429, "quota_exceeded", "86400")])
        with self.assertRaises(MehirError) as raised:
            Client(server.url, "sk_test_x").list_chains()
        self.assertEqual(len(server.requests), 1)
        self.assertEqual(raised.exception.code, "quota_exceeded")
        self.assertEqual(raised.exception.request_id, "req_fake")

    def test_no_retry_without_retry_after_or_on_other_statuses(self) -> None:
        for answer in (_problem(429, "rate_limited", None), _problem(404, "not_found", "1")):
            server = self.serve([answer])
            with self.assertRaises(MehirError):
                Client(server.url).list_chains()
            self.assertEqual(len(server.requests), 1)

    def test_retry_after_as_an_http_date(self) -> None:
        self.assertEqual(retry_after_seconds("Sun, 29 Nov 2026 08:00:10 GMT", now=1795939200.0), 10)
        self.assertEqual(retry_after_seconds("7"), 7)
        self.assertIsNone(retry_after_seconds("soon"))


SECRET = "whsec_0123456789abcdef"
BODY = b'{"id":"evt_1","type":"price.alert","created":"2026-11-22T10:00:00+02:00","data":{"price_ils":"5.90"}}'


def _sign(t: int, body: bytes = BODY, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


class SignatureTest(unittest.TestCase):
    now = 1_795_939_200

    def test_a_known_signature(self) -> None:
        # The server's own signer (signatureHeader of src/alerts/signature.ts) made this header for BODY.
        header = "t=1795939200,v1=7baa3a33d4882571a282409160606d7c8b911b1b69958b832eac77301cc441ee"
        self.assertTrue(verify_signature(header, BODY, SECRET, now=self.now))
        self.assertTrue(verify_signature(header, BODY.decode(), SECRET, now=self.now + 299))
        self.assertEqual(parse_webhook_event(header, BODY, SECRET, now=self.now)["id"], "evt_1")

    def test_refusals(self) -> None:
        good = _sign(self.now)
        for header, body, secret, now in [
            (f"t={self.now},v1={good}", BODY + b" ", SECRET, self.now),  # altered body
            (f"t={self.now},v1={good}", BODY, SECRET + "x", self.now),  # wrong secret
            (f"t={self.now},v1={good}", BODY, SECRET, self.now + 301),  # too old (a replay)
            (f"t={self.now + 1},v1={good}", BODY, SECRET, self.now),  # another timestamp
            (f"v1={good}", BODY, SECRET, self.now),  # no timestamp
            (f"t={self.now}", BODY, SECRET, self.now),  # no signature
            (f"t={self.now},v1={good.upper()}", BODY, SECRET, self.now),  # not lowercase hex
            ("", BODY, SECRET, self.now),
        ]:
            self.assertFalse(verify_signature(header, body, secret, now=now), header)
        with self.assertRaises(WebhookSignatureError):
            parse_webhook_event(f"t={self.now},v1={good}", BODY, "whsec_other", now=self.now)

    def test_any_v1_may_match(self) -> None:
        header = f"t={self.now},v1={'0' * 64},v1={_sign(self.now)}"
        self.assertTrue(verify_signature(header, BODY, SECRET, now=self.now))


BASE_URL = os.environ.get("MEHIR_BASE_URL")
API_KEY = os.environ.get("MEHIR_API_KEY")


@unittest.skipUnless(BASE_URL and API_KEY, "MEHIR_BASE_URL and MEHIR_API_KEY are not set (no server to call)")
class ServerTest(unittest.TestCase):
    def setUp(self) -> None:
        self.mehir = Client(str(BASE_URL), API_KEY)

    def test_prices_envelope(self) -> None:
        answer = self.mehir.get_prices(barcode=BARCODE)
        self.assertEqual(answer["data"]["barcode"], BARCODE)
        self.assertGreater(len(answer["data"]["prices"]), 0)
        self.assertTrue(answer["meta"]["request_id"].startswith("req_"))
        by_store = self.mehir.get_prices(barcode=BARCODE, granularity="store", city="חיפה")
        self.assertTrue(all(p["granularity"] == "store" for p in by_store["data"]["prices"]))

    def test_search_pages(self) -> None:
        first = self.mehir.search_products(q="חלב תנובה", limit=3)
        total = first["meta"]["total"]
        self.assertGreater(total, 3)  # more than one page
        items = list(self.mehir.search_products_all(q="חלב תנובה", limit=3))
        self.assertEqual(len(items), total)
        self.assertEqual(items[:3], first["data"])
        self.assertEqual(len({(i["barcode"], i["chain_id"]) for i in items}), total)

    def test_basket_and_chains(self) -> None:
        basket = self.mehir.compare_basket(items=[{"barcode": BARCODE, "quantity": 2}])
        self.assertGreater(len(basket["data"]["stores"]), 0)
        self.assertIsNotNone(basket["data"]["cheapest_store"])
        chains = self.mehir.list_chains()
        self.assertEqual(chains["meta"]["count"], len(chains["data"]))

    def test_errors_carry_the_problem(self) -> None:
        with self.assertRaises(MehirError) as raised:
            self.mehir.get_prices(barcode="7290000000000")
        error = raised.exception
        self.assertEqual((error.status, error.code), (404, "product_not_found"))
        self.assertTrue(error.request_id and error.request_id.startswith("req_"))
        with self.assertRaises(MehirError) as raised:
            self.mehir.search_products(q="חלב", limit=1000)
        self.assertEqual((raised.exception.status, raised.exception.code, raised.exception.param), (400, "invalid_parameter", "limit"))
        with self.assertRaises(MehirError) as raised:
            Client(str(BASE_URL), "sk_test_" + "0" * 32).list_chains()
        self.assertEqual(raised.exception.status, 401)

    def test_probes_images_and_mcp(self) -> None:
        self.assertEqual(self.mehir.get_liveness(), {"status": "ok"})
        image = self.mehir.get_product_image(file=f"{BARCODE}.svg")
        self.assertTrue(image.lstrip().startswith(b"<svg") or b"<svg" in image[:200])
        answer = self.mehir.post_mcp_message({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        self.assertIn("search_products", [tool["name"] for tool in answer["result"]["tools"]])

    def test_a_signed_test_event(self) -> None:
        receiver = _Loopback(lambda *request: (200, {}, b""))
        self.addCleanup(receiver.close)
        alert = self.mehir.create_alert(url=f"{receiver.url}/hook", barcode=BARCODE, condition={"below_ils": "0.10"})["data"]
        self.addCleanup(self.mehir.delete_alert, id=alert["id"])
        delivery = self.mehir.send_alert_test_event(id=alert["id"])["data"]
        self.assertEqual(delivery["status"], "succeeded")
        self.assertTrue(receiver.received.wait(60))
        _, path, headers, body = receiver.requests[0]
        self.assertEqual(path, "/hook")
        event = parse_webhook_event(headers.get("mehir-signature"), body, alert["secret"])
        self.assertEqual(event["id"], headers.get("mehir-event-id"))
        self.assertTrue(event["data"]["test"])
        self.assertFalse(verify_signature(headers.get("mehir-signature"), body + b"\n", alert["secret"]))
        listed = [a["id"] for a in self.mehir.list_alerts_all(limit=1)]
        self.assertIn(alert["id"], listed)


if __name__ == "__main__":
    unittest.main()
