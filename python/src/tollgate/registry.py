"""A drop-in for a runner's in-process approval registry: the same two functions, parked on Tollgate.

A runner that awaited ``wait_for_user_approval(...)`` and asked ``has_pending(...)`` of an
in-process registry of futures switches by changing the import. The elicitation is the one the
agent platform raised on Tollgate under that id (the request event it publishes anyway); the
wait binds it to this runner, so its verdict arrives here, also after a reconnect.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Awaitable, Callable
from typing import Any

from .errors import TollgateError
from .runner import DEFAULT_TIMEOUT_SECONDS, TollgateRunner

_configured: TollgateRunner | None = None
_lock = asyncio.Lock()


def configure(runner: TollgateRunner | None) -> None:
    """The runner the registry parks on (``None`` forgets it). Without one, ``TOLLGATE_URL`` and ``TOLLGATE_TOKEN`` make one."""
    global _configured
    _configured = runner


async def _runner() -> TollgateRunner:
    global _configured
    async with _lock:
        if _configured is None:
            url, token = os.environ.get("TOLLGATE_URL"), os.environ.get("TOLLGATE_TOKEN")
            if not url or not token:
                raise TollgateError("not_configured", "call tollgate.registry.configure(runner), or set TOLLGATE_URL and TOLLGATE_TOKEN")
            runner = TollgateRunner(url, token)
            await runner.connect()
            _configured = runner
        return _configured


def has_pending(conversation_id: str) -> bool:
    """Whether the session has an approval parked on this runner (messages to it must wait)."""
    return _configured is not None and _configured.has_pending(conversation_id)


async def wait_for_user_approval(
    *,
    elicitation_id: str,
    conversation_id: str,
    publish_event: Callable[[str, dict[str, Any]], Awaitable[None] | None],
    timeout_seconds: float | None = None,
) -> bool:
    """Park until the human's verdict: True only on accept; a decline, a timeout or a cancel is False.

    ``timeout_seconds`` (``None``: one day) bounds the wait; when it passes first the elicitation is
    cancelled on Tollgate, so the human's card closes. Cancelling the awaiting task cancels it too.
    On every way out, ``publish_event`` gets the ``response.elicitation_resolved`` event for the
    runner's own stream, as before.
    """
    runner = await _runner()
    budget = DEFAULT_TIMEOUT_SECONDS if timeout_seconds is None else timeout_seconds
    try:
        return (await runner.attach(elicitation_id, conversation_id, budget)).approved
    finally:
        published = publish_event(conversation_id, {"type": "response.elicitation_resolved", "elicitation_id": elicitation_id})
        if inspect.isawaitable(published):
            await published
