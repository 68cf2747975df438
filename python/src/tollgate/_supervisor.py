"""Keeps one live connection: dial with backoff and jitter, greet, ping, and dial again when it goes."""

from __future__ import annotations

import asyncio
import inspect
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ._link import Link
from .errors import TollgateError

log = logging.getLogger("tollgate")

Token = str | Callable[[], str | Awaitable[str]]
# Refusals after which the same request goes again on the next connection (an expired token's refusal closes the socket).
RETRY_WITH_NEW_LINK = frozenset({"connection_lost", "unauthorized"})
# A token function that raises, or whose tokens Tollgate refuses, this many times in a row ends the runner, as in the TypeScript client.
TOKEN_TRIES = 3
TOKEN_FAILURES = frozenset({"unauthorized", "token_provider_failed"})


@dataclass(frozen=True)
class Timing:
    backoff: tuple[float, float]
    ping_interval: float
    reply_timeout: float
    connect_timeout: float


class Supervisor:
    """The runner's connection. ``greet`` says ``hello`` on each new link before anyone else may use it."""

    def __init__(
        self,
        url: str,
        token: Token,
        timing: Timing,
        on_frame: Callable[[dict[str, Any]], None],
        greet: Callable[[Link], Awaitable[None]],
        on_refused: Callable[[TollgateError], None],
    ) -> None:
        self._url, self._token, self.timing = url, token, timing
        self._on_frame, self._greet, self._on_refused = on_frame, greet, on_refused
        self.link: Link | None = None
        self.refusal: TollgateError | None = None
        self.closed = False
        self._changed = asyncio.Event()  # set whenever the link comes or goes, or the runner ends
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None and not self.closed:
            self._task = asyncio.create_task(self._run())

    async def live(self, after: Link | None = None) -> Link:
        """The live link (another than ``after``), once there is one."""
        while True:
            self.raise_if_ended()
            if self.link is not None and self.link is not after:
                return self.link
            self._changed.clear()
            await self._changed.wait()

    def raise_if_ended(self) -> None:
        if self.refusal is not None:
            raise self.refusal
        if self.closed:
            raise TollgateError("closed", "runner closed")

    def pause(self, attempt: int, error: TollgateError | None = None) -> float:
        """Exponential backoff with jitter (half to all of the step); a ``retry_after_seconds`` is honoured."""
        if error is not None and error.retry_after_seconds:
            return float(error.retry_after_seconds)
        initial, ceiling = self.timing.backoff
        step: float = min(ceiling, initial * 2.0 ** min(attempt, 30))
        return step * (0.5 + random.random() / 2)

    async def close(self) -> None:
        self.closed = True
        self._changed.set()
        if self._task is not None:
            self._task.cancel()
        if self.link is not None:
            await self.link.close()

    async def _run(self) -> None:
        attempt, token_failures = 0, 0
        while not self.closed:
            try:
                link = await Link.dial(self._url, await self._fresh_token(), self._on_frame, self.timing.connect_timeout)
            except TollgateError as error:
                log.debug("connect failed: %s", error)
                token_failures = token_failures + 1 if error.code in TOKEN_FAILURES else 0
                # A string token refused once is refused for good; a function may give a better one next time.
                if token_failures and (isinstance(self._token, str) or token_failures >= TOKEN_TRIES):
                    return self._refused(error)
                await asyncio.sleep(self.pause(attempt))
                attempt += 1
                continue
            token_failures = 0
            reader = asyncio.create_task(link.read())
            try:
                await self._greet(link)
            except TollgateError as error:
                log.debug("hello failed: %s", error)
                link.drop()
                if error.code not in RETRY_WITH_NEW_LINK and not error.passing:
                    return self._refused(error)
            else:
                attempt = 0
                log.debug("connected: %s", link.connection_id)
                self._set(link)
                pinger = asyncio.create_task(self._keepalive(link))
                try:
                    await asyncio.wait([reader])
                finally:  # also when the runner closes, which cancels this task here
                    pinger.cancel()
            await reader
            log.debug("connection lost")
            self._set(None)
            await asyncio.sleep(self.pause(attempt))
            attempt += 1

    async def _keepalive(self, link: Link) -> None:
        """A ``ping`` before API Gateway's idle limit; an unanswered one means the socket is dead: dial again."""
        while True:
            await asyncio.sleep(self.timing.ping_interval)
            try:
                await link.request({"action": "ping"}, "pong", self.timing.reply_timeout)
            except TollgateError:
                link.drop()
                return

    def _set(self, link: Link | None) -> None:
        self.link = link
        self._changed.set()

    def _refused(self, error: TollgateError) -> None:
        """Tollgate refused this runner (its token, its sessions): it does not dial again."""
        self.refusal = error
        self._changed.set()
        self._on_refused(error)

    async def _fresh_token(self) -> str:
        if isinstance(self._token, str):
            return self._token
        try:
            token = self._token()
            return str(await token if inspect.isawaitable(token) else token)
        except Exception as error:  # the function's own failure: tried again at the next connect, TOKEN_TRIES times in a row at most
            raise TollgateError("token_provider_failed", f"the token provider failed: {error}") from error
