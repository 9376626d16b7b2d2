"""The API token's scheme: ``Authorization: Token <key>`` (DRF's). A ``Bearer`` header, what many APIs take,
used to be passed over in silence: a read was served as to anyone, a write told that no credentials were given.
It is now a 401 that says which scheme to use."""

from __future__ import annotations

from rest_framework import authentication, exceptions

WRONG_SCHEME = ("the API token goes in `Authorization: Token <token>` (the scheme is Token, not Bearer); "
                "get one from /api/auth/token/")


class ArenaTokenAuthentication(authentication.TokenAuthentication):
    def authenticate(self, request):
        words = authentication.get_authorization_header(request).split()
        if words and words[0].lower() == b"bearer":
            raise exceptions.AuthenticationFailed(WRONG_SCHEME)
        return super().authenticate(request)
