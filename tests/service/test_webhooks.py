"""Issue 19, item 4: owners hear about their bots. Webhooks POST each event about one's bots, signed, to a real
HTTP receiver on loopback (a thread here), retried after errors, timed out on a slow one, recorded in a log only
their owner sees; private addresses are refused unless the tests' setting allows them; the events feed (SSE)
carries the same JSON."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import ssl
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import trustme
from celery import current_app
from celery.exceptions import Retry
from celery.signals import before_task_publish
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from api import feed
from hooks import addresses, notices, sending, services, signing, tasks
from hooks.models import Delivery, Endpoint, Notice
from tests.support import record, rejected_version
from tournaments import events
from tournaments.services import api_token, claim_match, create_match, create_player, finish_match

from .conftest import play


class Receiver:
    """An HTTP server on 127.0.0.1 answering each POST with the next of ``codes`` (then 200), after ``delay``; over
    TLS with a ``tls`` context holding its certificate."""

    def __init__(self, tls: ssl.SSLContext | None = None):
        self.received, self.codes, self.delay = [], [], 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.received.append((dict(self.headers), body))
                time.sleep(receiver.delay)
                self.send_response(receiver.codes.pop(0) if receiver.codes else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.server.server_port}/arena-hook?from=test"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver():
    running = Receiver()
    yield running
    running.server.shutdown()
    running.server.server_close()


@pytest.fixture
def authority(tmp_path, monkeypatch) -> trustme.CA:
    """A certificate authority that this process's TLS clients trust, alone (``SSL_CERT_FILE``, which the default
    context reads as it is made)."""
    made = trustme.CA()
    made.cert_pem.write_to_path(str(tmp_path / "authority.pem"))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "authority.pem"))
    return made


def certified(authority: trustme.CA) -> ssl.SSLContext:
    """A server's TLS context with a certificate for 127.0.0.1 from ``authority``."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    return context


@pytest.fixture(autouse=True)
def local_webhooks(settings):
    """As the tests' receiver needs: plain http to loopback; quick retries and timeouts."""
    settings.ARENA = {**settings.ARENA, "WEBHOOK_ALLOW_HTTP": True, "WEBHOOK_ALLOW_PRIVATE": True,
                      "WEBHOOK_RETRY_SECONDS": 0.01, "WEBHOOK_TIMEOUT_SECONDS": 2.0, "WEBHOOK_MAX_ATTEMPTS": 3}
    cache.clear()  # the throttles' counts
    yield
    cache.clear()


@pytest.fixture
def eager(monkeypatch):
    """Deliveries run in this process as they are queued (a retry at once, its countdown skipped)."""
    monkeypatch.setattr(current_app.conf, "task_always_eager", True)


def client_of(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token(user)}")
    return client


pytestmark = pytest.mark.django_db


def test_a_finished_match_reaches_both_owners_signed(rivals, receiver, eager, django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    ann_hook = services.create_endpoint(ann.bot.owner, receiver.url)
    services.create_endpoint(bob.bot.owner, receiver.url, secret="bob's own secret, long enough")
    with django_capture_on_commit_callbacks(execute=True):
        match = play(ann, bob, ["white", "black"])
    assert len(receiver.received) == 2
    by_secret = {}
    for headers, body in receiver.received:
        assert headers["X-Arena-Event"] == "match.finished"
        for secret in (ann_hook.secret, "bob's own secret, long enough"):
            if signing.verify(secret, headers["X-Arena-Timestamp"], body, headers["X-Arena-Signature"]):
                by_secret[secret] = json.loads(body)
    assert set(by_secret) == {ann_hook.secret, "bob's own secret, long enough"}  # each signed with its own
    sent = by_secret[ann_hook.secret]
    assert sent["event"] == "match.finished" and sent["data"]["match"]["id"] == match.pk
    scores = [(bot["name"], bot["score"]) for bot in sent["data"]["bots"]]
    assert scores == [("ann", 2.0), ("bob", 0.0)]  # ann won as white, then as black
    assert not signing.verify("a wrong secret", headers["X-Arena-Timestamp"], body, headers["X-Arena-Signature"])
    assert set(Delivery.objects.values_list("status", "attempts", "response_code")) == {("delivered", 1, 200)}


def test_a_finished_matchs_notice_is_read_in_one_query_and_says_all_it_says(rivals):
    """The notice's read takes only the fields it sends (it runs on the worker after every match): the body is
    whole, and no deferred field is fetched afterwards."""
    ann, bob = rivals("ann", "bob")
    match = play(ann, bob, ["white", "none"])
    event = events.MatchFinished(match.pk, match.game, (ann.bot_id, bob.bot_id), "finished", True, None, None)
    with CaptureQueriesContext(connection) as read:
        name, owners, data = notices.match_finished(event)
    assert len(read.captured_queries) == 1
    assert (name, owners) == ("match.finished", sorted([ann.bot.owner_id, bob.bot.owner_id]))
    assert data == {
        "match": {"id": match.pk, "game": "tafl9", "status": "finished", "rated": True, "tournament": None,
                  "games": 2},
        "bots": [{"id": ann.bot_id, "name": "ann", "game": "tafl9", "version": ann.number, "score": 1.5},
                 {"id": bob.bot_id, "name": "bob", "game": "tafl9", "version": bob.number, "score": 0.5}]}


def test_the_match_workers_report_looks_once_for_an_endpoint_and_the_hooks_task_delivers(
        rivals, receiver, django_capture_on_commit_callbacks):
    """Issue 19, item 8: after a report, the match worker writes the owners' notices (one INSERT, so the feed has
    them whatever becomes of the message), looks whether an owner has an endpoint, and sends one message to
    arena.hooks; the deliveries are that queue's task's, which brings the notice to the endpoint's delivery log."""
    ann, bob = rivals("ann", "bob")
    hook = services.create_endpoint(ann.bot.owner, receiver.url)
    published = []

    def seen(sender=None, body=None, routing_key=None, **_):
        published.append((sender, list(body[0]), routing_key))  # its arguments, as JSON carries them

    match = create_match(ann, bob, rated=True, games=2)
    token = claim_match(match.pk, "worker-1")
    before_task_publish.connect(seen, weak=False)
    try:  # the report and its reactions, as the match worker's thread runs them (no task runs in this process)
        with CaptureQueriesContext(connection) as worker, django_capture_on_commit_callbacks(execute=True):
            assert finish_match(match.pk, token, [record("white"), record("black")])
    finally:
        before_task_publish.disconnect(seen)
    statements = [query["sql"] for query in worker.captured_queries]
    assert not [sql for sql in statements if "hooks_delivery" in sql]
    (look,) = [sql for sql in statements if "hooks_endpoint" in sql]  # whether any owner has one: no more
    assert look.startswith("SELECT 1 AS") and "LIMIT 1" in look
    assert len([sql for sql in statements if sql.startswith('INSERT INTO "hooks_notice"')]) == 1
    notices = list(Notice.objects.filter(event="match.finished").order_by("owner_id"))
    assert [notice.owner_id for notice in notices] == sorted([ann.bot.owner_id, bob.bot.owner_id])
    assert not Delivery.objects.exists() and receiver.received == []
    (fan_out,) = [(args, queue) for name, args, queue in published if name == "hooks.fan_out"]
    assert fan_out == ([[notice.pk for notice in notices]], "arena.hooks")

    current_app.conf.task_always_eager = True  # the hooks worker: the fan-out, then the delivery it queues
    try:
        with django_capture_on_commit_callbacks(execute=True):
            current_app.tasks["hooks.fan_out"].apply(fan_out[0])
        with django_capture_on_commit_callbacks(execute=True):  # the same message again: no second delivery
            current_app.tasks["hooks.fan_out"].apply(fan_out[0])
    finally:
        current_app.conf.task_always_eager = False
    (headers, body), = receiver.received
    assert headers["X-Arena-Event"] == "match.finished" and json.loads(body)["data"]["match"]["id"] == match.pk
    log = client_of(ann.bot.owner).get(f"/api/webhooks/{hook.pk}/deliveries/").json()["results"]
    assert [(row["event"], row["status"]) for row in log] == [("match.finished", "delivered")]


def tasks_sent_by_a_report(ann, bob, capture) -> list[str]:
    """The names of the tasks a match between ``ann`` and ``bob`` sends once reported (its reactions)."""
    published = []

    def seen(sender=None, **_):
        published.append(sender)

    match = create_match(ann, bob, rated=True, games=2)
    token = claim_match(match.pk, "worker-1")
    before_task_publish.connect(seen, weak=False)
    try:
        with capture(execute=True):
            assert finish_match(match.pk, token, [record("white"), record("black")])
    finally:
        before_task_publish.disconnect(seen)
    return published


def test_owners_without_an_endpoint_get_their_notices_and_no_message_is_sent(rivals,
                                                                          django_capture_on_commit_callbacks):
    """Most owners have no webhook: their feed has the notice, and the hooks queue gets no task for nobody."""
    ann, bob = rivals("ann", "bob")
    assert "hooks.fan_out" not in tasks_sent_by_a_report(ann, bob, django_capture_on_commit_callbacks)
    assert sorted(Notice.objects.filter(event="match.finished").values_list("owner_id", flat=True)) == sorted(
        [ann.bot.owner_id, bob.bot.owner_id])
    services.create_endpoint(bob.bot.owner, "http://127.0.0.1:9/arena-hook")  # one of the two has one now
    assert tasks_sent_by_a_report(ann, bob, django_capture_on_commit_callbacks).count("hooks.fan_out") == 1


@pytest.mark.parametrize("message", [((), {}), ((7,), {}), (([1, True],), {}), ((["1"],), {}), (([1], 2), {}),
                                     (([1],), {"forged": 1})])
def test_a_malformed_fan_out_message_changes_nothing(rivals, receiver, message, caplog):
    ann, bob = rivals("ann", "bob")
    services.create_endpoint(ann.bot.owner, receiver.url)
    services.write_notices("ping", [ann.bot.owner_id], {})
    args, kwargs = message
    assert tasks.fan_out(*args, **kwargs) is None
    assert "rejected task message" in caplog.text and not Delivery.objects.exists()


def sent(call, capture):
    """``call()``, then what it queued once the test's transaction "commits" (deliveries queue on commit)."""
    with capture(execute=True):
        return call()


def test_a_rejected_version_tells_its_owner_why(make_bot, player, receiver, eager,
                                                django_capture_on_commit_callbacks):
    from tournaments import events

    services.create_endpoint(player, receiver.url)
    version = rejected_version(make_bot("crashy"), "missing_module_bot.py")  # a library the sandbox lacks
    sent(lambda: events.deliver(events.VersionJudged(version.pk, version.bot_id, "tafl9", "rejected")),
         django_capture_on_commit_callbacks)
    (headers, body), = receiver.received
    data = json.loads(body)["data"]
    assert headers["X-Arena-Event"] == "version.rejected"
    assert data["reason"] == "init-failed: crash: exit code 1" and "arena_no_such_module" in data["stderr"]


def test_errors_are_retried_with_backoff_then_recorded(player, receiver, eager,
                                                       django_capture_on_commit_callbacks):
    hook = services.create_endpoint(player, receiver.url)
    receiver.codes = [500, 503]
    delivery = sent(lambda: services.send_test(hook), django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 3, 200)
    assert len({body for _, body in receiver.received}) == 1  # the same body each time
    assert [tasks.backoff(n) for n in (1, 2, 3)] == [0.01, 0.02, 0.04]

    receiver.codes = [500] * 5
    failed = sent(lambda: services.send_test(hook), django_capture_on_commit_callbacks)
    failed.refresh_from_db()
    assert (failed.status, failed.attempts, failed.response_code, failed.error) == ("failed", 3, 500, "answered 500")


def test_a_slow_receiver_delays_no_match_and_times_out(rivals, receiver, settings, django_capture_on_commit_callbacks):
    settings.ARENA = {**settings.ARENA, "WEBHOOK_TIMEOUT_SECONDS": 0.5, "WEBHOOK_MAX_ATTEMPTS": 1}
    receiver.delay = 3.0
    ann, bob = rivals("ann", "bob")
    services.create_endpoint(ann.bot.owner, receiver.url)
    queued = []

    def seen(sender=None, routing_key=None, **_):
        queued.append((sender, routing_key))

    before_task_publish.connect(seen, weak=False)
    started = time.monotonic()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            play(ann, bob, ["white"])  # the reaction queues the delivery on arena.hooks, it sends nothing itself
    finally:
        before_task_publish.disconnect(seen)
    assert time.monotonic() - started < 2.0 and receiver.received == []
    assert ("hooks.fan_out", "arena.hooks") in queued  # the match workers never take that queue
    current_app.loader.import_default_modules()  # as a worker starts: the tasks are found by autodiscovery
    assert {"hooks.fan_out", "hooks.deliver"} <= set(current_app.tasks)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.fan_out.apply(([Notice.objects.get(owner=ann.bot.owner).pk],)).get() == 1  # the hooks worker
    delivery = Delivery.objects.get()
    assert delivery.status == "pending"
    started = time.monotonic()
    assert tasks.deliver.apply((delivery.pk,)).get() == "failed"  # as the hooks worker runs it
    assert time.monotonic() - started < 1.5
    delivery.refresh_from_db()
    waited = re.match(r"timed out after (\d+\.\d) s", delivery.error)  # 0.5 s, and a loaded machine's lateness
    assert waited and 0.5 <= float(waited[1]) < 1.5 and delivery.response_code is None, delivery.error


def test_a_player_whose_receivers_are_slow_waits_for_the_next_minute_and_no_one_else_does(
        player, other_player, receiver, settings, django_capture_on_commit_callbacks):
    # The hooks worker serves every owner. One whose receiver takes its time has a share of it a minute; past that,
    # their next delivery waits for the next minute, untried and uncounted, while another owner's goes at once.
    settings.ARENA = {**settings.ARENA, "WEBHOOK_SECONDS_A_MINUTE": 0.2}
    if 60 - time.time() % 60 < 5:  # the shares are a clock minute's: all of this test in one of them
        time.sleep(60 - time.time() % 60)
    quick = Receiver()
    try:
        receiver.delay = 0.3
        slow, fine = services.create_endpoint(player, receiver.url), services.create_endpoint(other_player, quick.url)
        with django_capture_on_commit_callbacks(execute=False):  # the tasks are run below, by hand
            first, second, other = (services.send_test(slow), services.send_test(slow), services.send_test(fine))
        assert tasks.postponed(player.pk) == 0
        assert tasks.deliver(first.pk) == "delivered"  # 0.3 s of the hooks worker: the minute's 0.2 s are spent
        assert 0 < tasks.postponed(player.pk) <= 60 and tasks.postponed(other_player.pk) == 0
        with pytest.raises(Retry):
            tasks.deliver(second.pk)
        second.refresh_from_db()
        assert (second.status, second.attempts, len(receiver.received)) == ("pending", 0, 1)
        assert re.fullmatch(r"waiting \d+ s: your deliveries took their 0.2 s of this minute", second.error)
        assert tasks.deliver(other.pk) == "delivered" and len(quick.received) == 1
        cache.delete(tasks.spent_key(player.pk, int(time.time() // 60)))  # state: the next minute
        assert tasks.deliver(second.pk) == "delivered" and len(receiver.received) == 2
    finally:
        quick.server.shutdown()
        quick.server.server_close()


def dripping_receiver() -> socket.socket:
    """A receiver on loopback that answers its first POST 200, one header byte every 0.2 s for 5 s."""
    listener = socket.create_server(("127.0.0.1", 0))

    def drip():
        try:
            peer, _ = listener.accept()
        except OSError:  # the test closed it first: whoever connected was cut before it was accepted
            return
        with peer:
            peer.recv(65536)
            try:
                peer.sendall(b"HTTP/1.1 200 OK\r\n")
                for _ in range(25):
                    peer.sendall(b"X")
                    time.sleep(0.2)
                peer.sendall(b": y\r\nContent-Length: 0\r\n\r\n")
            except OSError:  # cut off: what the tests want
                pass

    threading.Thread(target=drip, daemon=True).start()
    return listener


def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_deadline(settings):
    # Each header byte comes within the socket's timeout, so that timeout alone never fires: the delivery's
    # deadline must, or one receiver holds the hooks worker (and everyone's deliveries) as long as it likes.
    settings.ARENA = {**settings.ARENA, "WEBHOOK_TIMEOUT_SECONDS": 0.5}
    listener = dripping_receiver()
    started = time.monotonic()
    outcome = sending.post(f"http://127.0.0.1:{listener.getsockname()[1]}/hook", "secret", "ping", b"{}")
    took = time.monotonic() - started
    listener.close()
    assert not outcome.delivered and outcome.code is None and outcome.error.startswith("timed out after 0.")
    assert took < 1.5, took


def test_a_deadline_that_passes_while_the_socket_is_made_still_cuts_the_connection():
    # A receiver that completes the TCP handshake just as the deadline passes: the deadline finds no socket to
    # cut, and without a second look the drip that follows would be bounded by nothing. Here the deadline passes
    # (its timer's function run at once) before the socket exists; the request must fail, not get the answer.
    listener = dripping_receiver()
    port = listener.getsockname()[1]
    connection = sending.PinnedHTTPConnection("127.0.0.1", port, "127.0.0.1", timeout=5)
    sending.deadline(connection, 60).function()
    with pytest.raises(OSError):
        connection.request("POST", "/hook", body=b"{}")
        connection.getresponse()
    connection.close()
    listener.close()


def test_deliveries_over_https_reach_a_certified_receiver_only(authority, settings):
    # The pinned connection connects to the checked address yet checks the certificate against the URL's host.
    settings.ARENA = {**settings.ARENA, "WEBHOOK_ALLOW_HTTP": False}
    trusted, stranger = Receiver(certified(authority)), Receiver(certified(trustme.CA()))
    try:
        outcome = sending.post(trusted.url, "secret", "ping", b'{"hello": 1}')
        refused = sending.post(stranger.url, "secret", "ping", b'{"hello": 1}')
    finally:
        for running in (trusted, stranger):
            running.server.shutdown()
            running.server.server_close()
    assert outcome.delivered and outcome.code == 200, outcome
    [(headers, body)] = trusted.received
    assert body == b'{"hello": 1}' and headers["X-Arena-Signature"] == signing.signature(
        "secret", int(headers["X-Arena-Timestamp"]), body)
    assert not refused.delivered and refused.code is None and "CERTIFICATE_VERIFY_FAILED" in refused.error, refused
    assert stranger.received == []


def test_a_deadline_that_passes_while_the_tls_socket_is_made_cuts_it_before_the_handshake(authority):
    listener = socket.create_server(("127.0.0.1", 0))
    first = []

    def serve():
        try:
            peer, _ = listener.accept()
        except OSError:  # the test closed it first
            return
        with peer, contextlib.suppress(OSError):
            peer.settimeout(5)
            first.append(peer.recv(1, socket.MSG_PEEK))  # a ClientHello's first byte, or b"" for a hang-up
            with certified(authority).wrap_socket(peer, server_side=True) as tls:
                tls.recv(65536)
                tls.sendall(b"HTTP/1.1 204 No Content\r\n\r\n")

    serving = threading.Thread(target=serve, daemon=True)
    serving.start()
    connection = sending.PinnedHTTPSConnection("127.0.0.1", listener.getsockname()[1], "127.0.0.1", timeout=5)
    sending.deadline(connection, 60).function()
    with pytest.raises(OSError):
        connection.request("POST", "/hook", body=b"{}")
        connection.getresponse()
    connection.close()
    serving.join(5)
    listener.close()
    assert first == [b""]  # cut before its hello: the handshake never began


def test_a_name_whose_dns_never_answers_holds_neither_a_request_nor_the_hooks_worker(player, settings, monkeypatch):
    # A name's DNS is the registrant's to make slow; no such server runs here, so the system resolver is made to
    # hang for that one name (the rest resolve as ever). Registration answers at the deadline, as a delivery does,
    # and the threads stuck in lookups stay few: past them, a lookup is refused at once.
    settings.ARENA = {**settings.ARENA, "WEBHOOK_TIMEOUT_SECONDS": 0.3}
    released, real = threading.Event(), socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host == "slow.example":
            released.wait(10)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    client = client_of(player)
    try:
        started = time.monotonic()
        refused = client.post("/api/webhooks/", {"url": "http://slow.example/hook"}, format="json")
        assert refused.status_code == 400 and time.monotonic() - started < 1.0
        assert refused.json()["url"] == ["url host slow.example did not resolve within 0.3 s"]
        for _ in range(addresses.LOOKUPS_AT_ONCE - 1):  # the first is still stuck; fill the rest
            assert not sending.post("http://slow.example/hook", "secret", "ping", b"{}").delivered
        crowded = sending.post("http://127.0.0.1:9/hook", "secret", "ping", b"{}")
        assert crowded.error.startswith("host 127.0.0.1 was not looked up: too many slow lookups")
        assert not crowded.final  # tried again later: one owner's slow name must not fail everyone's deliveries
    finally:
        released.set()
    assert not Endpoint.objects.exists()


def test_a_name_that_does_not_resolve_for_a_moment_is_tried_again(player, receiver, eager, monkeypatch,
                                                                   django_capture_on_commit_callbacks):
    # The registrant's DNS fails once, at the first delivery (resolvers time out, names are being moved): the
    # delivery is tried again, as after a 503, not failed for good as a refused address is.
    real, lookups = socket.getaddrinfo, []

    def getaddrinfo(host, *args, **kwargs):
        if host != "moving.example":
            return real(host, *args, **kwargs)
        lookups.append(host)
        if len(lookups) == 2:
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real("127.0.0.1", *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    hook = services.create_endpoint(player, receiver.url.replace("127.0.0.1", "moving.example"))
    delivery = sent(lambda: services.send_test(hook), django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_code) == ("delivered", 2, 200)
    assert len(lookups) == 3 and len(receiver.received) == 1


def test_private_and_plain_http_addresses_are_refused_when_not_allowed(player, receiver, settings, eager,
                                                                      django_capture_on_commit_callbacks):
    client = client_of(player)
    hook = services.create_endpoint(player, receiver.url)  # made while the tests' setting allows it
    settings.ARENA = {**settings.ARENA, "WEBHOOK_ALLOW_PRIVATE": False}
    for url, says in [(receiver.url, "loopback"), ("http://10.1.2.3/x", "private"),
                      ("http://169.254.169.254/latest", "link-local"), ("http://[::1]:8000/", "loopback"),
                      ("http://224.0.0.1/", "multicast"),
                      # IPv6 that carries IPv4 (NAT64, IPv4-compatible, 6to4): judged by what it carries too
                      ("http://[64:ff9b::7f00:1]/", "carries 127.0.0.1, a loopback"),
                      ("http://[::7f00:1]/", "carries 127.0.0.1, a loopback"),
                      ("http://[2002:a9fe:a9fe::1]/", "carries 169.254.169.254, a link-local")]:
        refused = client.post("/api/webhooks/", {"url": url}, format="json")
        assert refused.status_code == 400 and says in refused.json()["url"][0], (url, refused.json())
    # At delivery too, the address is checked again (DNS rebinding):
    delivery = sent(lambda: services.send_test(hook), django_capture_on_commit_callbacks)
    delivery.refresh_from_db()
    assert delivery.status == "failed" and delivery.error.startswith("refused: resolves to 127.0.0.1")
    assert delivery.attempts == 1  # refused for good: no try could fare better
    assert receiver.received == []
    settings.ARENA = {**settings.ARENA, "WEBHOOK_ALLOW_HTTP": False}
    refused = client.post("/api/webhooks/", {"url": "http://example.org/hook"}, format="json")
    assert refused.status_code == 400 and refused.json()["url"] == ["url must be an https:// URL"]
    assert Endpoint.objects.count() == 1
    for url in ("https://127.0.0.1:0/x", "https://127.0.0.1:65536/x"):  # ":0" once meant port 443
        refused = client.post("/api/webhooks/", {"url": url}, format="json")
        assert refused.json()["url"] == ["url has a port that is not a number from 1 to 65535"], url
    # What carries a public IPv4 address is public
    assert [addresses.refused_address(a) for a in ("64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8")] == [
        None, None, None]


def test_the_api_makes_lists_and_removes_ones_own_webhooks_only(player, other_player, receiver, settings):
    mine, theirs = client_of(player), client_of(other_player)
    made = mine.post("/api/webhooks/", {"url": receiver.url}, format="json")
    assert made.status_code == 201
    hook = made.json()
    assert len(hook["secret"]) >= 32 and hook["secret_hint"] == "…" + hook["secret"][-4:]
    listed = mine.get("/api/webhooks/").json()["results"]
    assert [row["id"] for row in listed] == [hook["id"]] and "secret" not in listed[0]
    pinged = mine.post(f"/api/webhooks/{hook['id']}/ping/")
    assert pinged.status_code == 202 and pinged.json()["event"] == "ping"
    log = mine.get(f"/api/webhooks/{hook['id']}/deliveries/").json()["results"]
    assert [row["event"] for row in log] == ["ping"] and hook["secret"] not in json.dumps(log)
    for call in (theirs.get(f"/api/webhooks/{hook['id']}/"), theirs.get(f"/api/webhooks/{hook['id']}/deliveries/"),
                 theirs.post(f"/api/webhooks/{hook['id']}/ping/"), theirs.delete(f"/api/webhooks/{hook['id']}/"),
                 theirs.patch(f"/api/webhooks/{hook['id']}/", {"active": False}, format="json")):
        assert call.status_code == 404
    assert theirs.get("/api/webhooks/").json()["results"] == []
    assert APIClient().get("/api/webhooks/").status_code == 401
    assert mine.patch(f"/api/webhooks/{hook['id']}/", {"active": False}, format="json").json()["active"] is False
    short = mine.post("/api/webhooks/", {"url": receiver.url, "secret": "short"}, format="json")
    assert short.status_code == 400 and "secret" in short.json()
    settings.ARENA = {**settings.ARENA, "WEBHOOK_MAX_ENDPOINTS": 1}
    over = mine.post("/api/webhooks/", {"url": receiver.url}, format="json")
    assert over.status_code == 400 and "most" in over.json()["url"][0]
    assert mine.delete(f"/api/webhooks/{hook['id']}/").status_code == 204
    assert Endpoint.objects.count() == 0 and Delivery.objects.count() == 0


def test_creating_webhooks_is_throttled(player, receiver, settings):
    from tests.api.conftest import throttle_rates

    throttle_rates(settings, webhooks="2/hour")
    client = client_of(player)
    codes = [client.post("/api/webhooks/", {"url": receiver.url}, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]


@pytest.mark.django_db(transaction=True)
def test_the_feed_carries_the_same_events_and_ends_on_time(live_server, monkeypatch):
    """A real threaded server (as runserver): the feed sends a notice made after it opened, and ends after its
    STREAM_SECONDS whether or not it is read, giving its slot back."""
    monkeypatch.setattr(feed, "STREAM_SECONDS", 1.5)
    monkeypatch.setattr(feed, "TICK_SECONDS", 0.05)
    owner = create_player("feeder", None)
    request = urllib.request.Request(f"{live_server.url}/api/events/stream/",
                                     headers={"Authorization": f"Token {api_token(owner)}",
                                              "Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=10) as stream:
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert stream.readline() == b"retry: 500\n"
        (notice,) = services.publish("ping", [owner.pk], {"hello": "feed"})
        received = stream.read()  # to the stream's end
    assert feed.SLOTS.used == 0
    event = f"id: {notice.pk}\nevent: ping\ndata: ".encode()
    assert received.count(event) == 1
    data = received.split(event)[1].split(b"\n")[0]
    assert json.loads(data) == Notice.objects.get(pk=notice.pk).body
    assert json.loads(data)["data"] == {"hello": "feed"}
    assert APIClient().get("/api/events/stream/").status_code == 401


def test_one_account_holds_at_most_its_share_of_the_feeds_streams(player, monkeypatch):
    from django.core.signals import request_finished
    from django.db import close_old_connections

    from api import streaming

    monkeypatch.setattr(feed, "SLOTS", streaming.Slots(8, per_client=2))
    client = client_of(player)
    opened = [client.get("/api/events/stream/", REMOTE_ADDR=address, **{"wsgi.multithread": True})
              for address in ("203.0.113.5", "198.51.100.7", "192.0.2.1")]
    assert [response.status_code for response in opened] == [200, 200, 429]  # one account, wherever it is
    assert opened[2].json()["detail"] == [
        "you hold 2 streams on this server already, the most one client may: close one"]
    request_finished.disconnect(close_old_connections)  # as the server ends a response, the test's database kept
    try:
        for response in opened[:2]:
            response.close()
    finally:
        request_finished.connect(close_old_connections)
    assert feed.SLOTS.used == 0 and not feed.SLOTS.held


def test_the_players_page_adds_pings_and_removes_webhooks(player, other_player, receiver):
    from django.test import Client

    site = Client()
    site.force_login(player)
    page = f"/players/{player.username}/"
    assert "No webhook yet." in site.get(page).content.decode()
    added = site.post("/webhooks/", {"url": receiver.url, "secret": ""}, follow=True)
    hook = Endpoint.objects.get()
    shown = added.content.decode()
    assert hook.secret in shown and hook.url in shown  # the secret, this once
    assert site.post(f"/webhooks/{hook.pk}/ping/").status_code == 302
    again = site.get(page).content.decode()
    assert hook.secret not in again and hook.secret_hint in again and ">ping<" in again  # the delivery log
    bad = site.post("/webhooks/", {"url": "ftp://example.org/x"})
    assert bad.status_code == 400 and Endpoint.objects.count() == 1
    stranger = Client()
    stranger.force_login(other_player)
    assert "Your webhooks" not in stranger.get(page).content.decode()
    assert stranger.post(f"/webhooks/{hook.pk}/remove/").status_code == 404
    assert site.post(f"/webhooks/{hook.pk}/remove/").status_code == 302 and Endpoint.objects.count() == 0
