"""The one error the client raises: a contract code (``payload_too_large``, ``not_found``, ...) and a message."""

from __future__ import annotations

# Refusals that pass: the same request may succeed a moment later.
PASSING = frozenset({"internal_error", "rate_limited"})


class TollgateError(Exception):
    """A refusal by Tollgate (its error frame's ``code``) or by this client before sending.

    Codes of the contract: ``bad_request``, ``unauthorized``, ``forbidden``, ``not_found``,
    ``conflict``, ``payload_too_large``, ``rate_limited``, ``internal_error``. The client adds
    ``connection_lost`` (the socket went while a reply was due), ``closed`` (the runner closed) and
    ``token_provider_failed`` (the token function raised, the third time in a row it failed or its token was refused).
    """

    def __init__(self, code: str, message: str, retry_after_seconds: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.retry_after_seconds = retry_after_seconds

    @property
    def passing(self) -> bool:
        """Whether the same request may succeed when sent again."""
        return self.code in PASSING
