"""Test helpers: HS256 tokens from the standard library, the HTTP API as a human or a service calls it, and a TCP proxy that cuts sockets."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
import uuid
from typing import Any
from urllib.parse import urlsplit

from tollgate import Session, TollgateRunner
from tollgate._supervisor import Token

SECRET = "tollgate-python-client-test-secret"


def fresh(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def mint_token(role: str, sub: str, tenant: str = "acme", ttl_seconds: int = 3600) -> str:
    """An HS256 JWT with the claims Tollgate reads (sub, tenant, role, exp)."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    now = int(time.time())
    claims = _b64(json.dumps({"sub": sub, "tenant": tenant, "role": role, "iat": now, "exp": now + ttl_seconds}).encode())
    signature = hmac.new(SECRET.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{_b64(signature)}"


class Tollgate:
    """The local runtime under test: its WebSocket URL, and its HTTP API called as a human or a service."""

    def __init__(self, ws_url: str) -> None:
        self.ws_url = ws_url
        parts = urlsplit(ws_url)
        self.port = parts.port or 80
        self.http_url = f"http://{parts.hostname}:{self.port}"
        self.human = mint_token("human", "human-1")
        self.service = mint_token("service", "service-1")
        self.runner_token = mint_token("runner", "runner-1")

    def runner(self, sessions: list[str], url: str | None = None, token: Token | None = None, **options: Any) -> TollgateRunner:
        settings: dict[str, Any] = {"backoff": (0.02, 0.2), **options}
        return TollgateRunner(url or self.ws_url, token or self.runner_token, [Session(s) for s in sessions], **settings)

    async def call(self, token: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        return await asyncio.to_thread(self._call, token, method, path, body)

    def _call(self, token: str, method: str, path: str, body: Any) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.http_url}{path}", data=data, method=method)
        request.add_header("authorization", f"Bearer {token}")
        request.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    async def answer(self, session_id: str, elicitation_id: str, action: str, **extra: Any) -> tuple[int, Any]:
        """A human's verdict, given as soon as the elicitation exists."""
        body = {"type": "approval", "elicitation_id": elicitation_id, "action": action, **extra}
        for _ in range(500):
            status, reply = await self.call(self.human, "POST", f"/v1/sessions/{session_id}/events", body)
            if status != 404:
                return status, reply
            await asyncio.sleep(0.02)
        raise AssertionError(f"{elicitation_id} was never raised")

    async def elicitation(self, elicitation_id: str) -> dict[str, Any]:
        status, body = await self.call(self.human, "GET", f"/v1/elicitations/{elicitation_id}")
        assert status == 200, body
        return body

    async def eventually(self, elicitation_id: str, status: str) -> dict[str, Any]:
        """The elicitation's record once it has the status (raises and resolutions land a moment after the call)."""
        for _ in range(500):
            code, body = await self.call(self.human, "GET", f"/v1/elicitations/{elicitation_id}")
            if code == 200 and body["status"] == status:
                return body
            await asyncio.sleep(0.02)
        raise AssertionError(f"{elicitation_id} never became {status}")


class Proxy:
    """A TCP proxy in front of the runtime: ``cut()`` drops every connection at once, as a network does."""

    def __init__(self, upstream_port: int) -> None:
        self._upstream = upstream_port
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self._silent: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None
        self.refusing = False
        self.connections = 0

    async def __aenter__(self) -> Proxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *_: object) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()

    def url(self, ws_url: str) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return ws_url.replace(f":{self._upstream}/", f":{port}/")

    def cut(self) -> None:
        for client, upstream in list(self._pairs):
            client.transport.abort()
            upstream.transport.abort()
        self._pairs.clear()

    def silence(self) -> None:
        """The live connections stay open but carry nothing more (a peer gone quiet); new ones work."""
        for client, upstream in self._pairs:
            self._silent.update((client, upstream))

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.transport.abort()
            return
        self.connections += 1
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self._upstream)
        pair = (writer, up_writer)
        self._pairs.add(pair)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self._pairs.discard(pair)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if writer not in self._silent:
                    writer.write(data)
                    await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.transport.abort()
