"""One WebSocket connection to Tollgate: dial, send, and match each reply to its request by ``ref``."""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from collections.abc import Callable
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI
from websockets.uri import parse_uri

from .errors import TollgateError
from .frames import encode


def _connector() -> tuple[Callable[..., Any], str]:
    """websockets' asyncio client and its headers option: 13 and later, or 10 to 12 (Debian 12 ships 10.4)."""
    try:
        return importlib.import_module("websockets.asyncio.client").connect, "additional_headers"
    except ImportError:
        return importlib.import_module("websockets.legacy.client").connect, "extra_headers"


_connect, _HEADERS_OPTION = _connector()


def check_url(url: str) -> str:
    """A ``ws://`` or ``wss://`` address with a host: websockets refuses any other at every dial, which no retry mends."""
    try:
        parse_uri(url if isinstance(url, str) else repr(url))
    except (InvalidURI, ValueError) as error:
        raise TollgateError("bad_request", f"url must be a ws:// or wss:// address with a host, as ws://127.0.0.1:4000/ws ({error})") from None
    return url


def _status_of(error: InvalidHandshake) -> int | None:
    response = getattr(error, "response", None)
    status = getattr(error, "status_code", None) or getattr(response, "status_code", None)
    return status if isinstance(status, int) else None


class Link:
    """A live socket. ``on_frame`` sees every server frame; ``request`` also waits for the direct reply."""

    def __init__(self, socket: Any, on_frame: Callable[[dict[str, Any]], None]) -> None:
        self._socket = socket
        self._on_frame = on_frame
        self._replies: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next_ref = 1
        self._heard_at = time.monotonic()
        self.connection_id: str | None = None

    @classmethod
    async def dial(cls, url: str, token: str, on_frame: Callable[[dict[str, Any]], None], open_timeout: float) -> Link:
        options: dict[str, Any] = {_HEADERS_OPTION: {"Authorization": f"Bearer {token}"}}
        try:
            # Tollgate's own `ping` frames keep the socket alive and prove it works; no protocol-level pings.
            socket = await _connect(url, ping_interval=None, open_timeout=open_timeout, close_timeout=1, **options)
        except InvalidHandshake as error:
            status = _status_of(error)
            if status in (401, 403):
                raise TollgateError("unauthorized", f"connection refused ({status})") from error
            raise TollgateError("connection_lost", f"could not connect ({status or error})") from error
        except (OSError, asyncio.TimeoutError) as error:
            raise TollgateError("connection_lost", f"could not connect ({error})") from error
        return cls(socket, on_frame)

    async def read(self) -> None:
        """Read until the socket closes; then every reply still due fails with ``connection_lost``."""
        try:
            async for raw in self._socket:
                self._receive(raw)
        except ConnectionClosed:
            pass
        finally:
            for reply in self._replies.values():
                if not reply.done():
                    reply.set_exception(TollgateError("connection_lost", "connection lost"))
            self._replies.clear()

    def _receive(self, raw: str | bytes) -> None:
        self._heard_at = time.monotonic()
        try:
            frame = json.loads(raw)
        except ValueError:
            return  # not a frame of this protocol
        if not isinstance(frame, dict):
            return
        self._on_frame(frame)
        reply = self._replies.pop(frame["ref"], None) if isinstance(frame.get("ref"), int) else None
        if reply is not None and not reply.done():
            reply.set_result(frame)

    async def request(self, frame: dict[str, Any], expect: str, timeout: float) -> dict[str, Any]:
        """Send a frame and wait for its reply; an error frame raises its code.

        The link is dead when ``timeout`` passes with the reply due and not a frame heard (a busy
        server that answers other frames meanwhile is slow, not gone).
        """
        ref = self._next_ref
        self._next_ref += 1
        text = encode({**frame, "ref": ref})  # refused before anything is sent
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._replies[ref] = reply
        try:
            await self._socket.send(text)
            answer = await self._reply(reply, timeout)
        except ConnectionClosed as error:
            raise TollgateError("connection_lost", "connection lost") from error
        finally:
            self._replies.pop(ref, None)
            if reply.done() and not reply.cancelled():
                reply.exception()  # a loss seen by send() first leaves this one unread
        if answer.get("type") == "error":
            retry = answer.get("retry_after_seconds")
            raise TollgateError(str(answer.get("code")), str(answer.get("message")), retry if isinstance(retry, (int, float)) else None)
        if answer.get("type") != expect:
            raise TollgateError("bad_reply", f"expected {expect}, got {answer.get('type')}")
        return answer

    async def _reply(self, reply: asyncio.Future[dict[str, Any]], timeout: float) -> dict[str, Any]:
        sent_at = time.monotonic()
        while True:
            try:
                return await asyncio.wait_for(asyncio.shield(reply), timeout)
            except asyncio.TimeoutError:
                if time.monotonic() - max(self._heard_at, sent_at) >= timeout:
                    self.drop()
                    raise TollgateError("connection_lost", f"nothing heard for {timeout} s") from None

    def drop(self) -> None:
        """Cut the connection at once (a silent peer would keep a polite close waiting)."""
        transport = getattr(self._socket, "transport", None)
        if transport is not None:
            transport.abort()

    async def close(self) -> None:
        await self._socket.close(1000)
