"""Issue 18, the doors every request passes: request bodies bounded before they are read, and the
Content-Security-Policy on every page."""

from __future__ import annotations

import io

import pytest
from django.test import Client


class UnreadBody(io.RawIOBase):
    """A request body that must never be read: reading it fails the test (a real 1 GiB body would be spooled)."""

    def __init__(self):
        self.reads = 0

    def readable(self):
        return True

    def read(self, size=-1):
        self.reads += 1
        raise AssertionError("the body was read")

    readline = read


def post_declaring(url: str, length: int, **extra):
    body = UnreadBody()
    response = Client().generic("POST", url, b"-", content_type="multipart/form-data; boundary=xyz",
                                CONTENT_LENGTH=str(length), **{"wsgi.input": body}, **extra)
    return response, body


@pytest.mark.parametrize("url", ["/account/register/", "/account/login/", "/api/bots/", "/api/auth/token/",
                                 "/admin/login/", "/bots/1/", "/no-such-page/"])
def test_an_anonymous_huge_body_is_refused_unread_on_every_url(url, db, settings):
    response, body = post_declaring(url, 1 << 30)
    assert response.status_code == 413, response.content
    assert body.reads == 0  # not even the CSRF check looked at it
    limit = settings.REQUEST_MAX_BYTES
    assert response.json()["detail"] == (
        f"the request body is {1 << 30} bytes; the limit is {limit} bytes (the largest upload allowed, with room "
        "for the form around it)")


def test_the_limit_is_the_largest_upload_with_room_for_the_form(settings):
    assert settings.REQUEST_MAX_BYTES == settings.ARENA["UPLOAD_MAX_BYTES"] + 64 * 1024


def test_a_body_at_the_limit_goes_on_to_the_view(db, settings):
    settings.REQUEST_MAX_BYTES = 1000
    response = Client().post("/account/register/", {"username": "lin", "password": "a-long-pass-42"})
    assert response.status_code == 302  # registered: a small body is untouched
    response, body = post_declaring("/account/register/", 1001)
    assert response.status_code == 413 and body.reads == 0


def test_a_chunked_body_is_refused_unread(db):
    body = UnreadBody()
    response = Client().generic("POST", "/api/bots/", b"", HTTP_TRANSFER_ENCODING="chunked",
                                **{"wsgi.input": body})
    assert response.status_code == 411 and body.reads == 0
    assert "must declare its Content-Length" in response.json()["detail"]


def test_a_content_length_that_is_no_number_is_refused(db):
    response = Client().generic("POST", "/api/bots/", b"", CONTENT_LENGTH="lots", **{"wsgi.input": UnreadBody()})
    assert response.status_code == 400 and "Content-Length must be a number" in response.json()["detail"]


@pytest.mark.parametrize("url", ["/", "/tournaments/", "/take-part/", "/account/login/", "/admin/login/",
                                 "/no-such-page/", "/static/web/site.css"])
def test_every_page_has_a_policy_allowing_only_the_sites_own_scripts_and_styles(url, db):
    policy = Client().get(url).headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["default-src"] == "'self'" and directives["object-src"] == "'none'"


def test_library_pages_may_have_the_inline_code_they_need_and_nothing_from_elsewhere(db):
    docs = Client().get("/api/docs/").headers["Content-Security-Policy"]
    assert "script-src 'self' 'unsafe-inline'" in docs and "http" not in docs
    browsable = Client().get("/api/", HTTP_ACCEPT="text/html").headers["Content-Security-Policy"]
    assert "script-src 'self';" in browsable and "style-src 'self' 'unsafe-inline'" in browsable


def test_the_csrf_check_never_spools_an_anonymous_body_to_disk(db, settings, tmp_path):
    """A body within the bound, with a CSRF cookie but no token: the CSRF check parses it to look for the token.
    It does so in memory: the spool directory does not exist, so writing a temporary file there would fail."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path / "no-such-directory")
    browser = Client(enforce_csrf_checks=True)
    browser.cookies["csrftoken"] = "x" * 32
    big = SimpleUploadedFile("bot.py", b"#" * (settings.REQUEST_MAX_BYTES - 10 * 1024))
    response = browser.post("/account/register/", {"username": "lin", "file": big})
    assert response.status_code == 403  # refused by the CSRF check, having parsed it in memory
