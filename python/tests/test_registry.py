"""The drop-in `wait_for_user_approval`: parks on the elicitation the platform raised, True only on accept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from support import Tollgate, fresh

from tollgate import registry


@dataclass
class DropIn:
    sid: str = field(default_factory=lambda: fresh("conv"))
    eid: str = field(default_factory=lambda: fresh("elicit"))
    published: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    waiting: asyncio.Task[bool] | None = None


@asynccontextmanager
async def drop_in(tollgate: Tollgate, timeout_seconds: float | None = None) -> AsyncIterator[DropIn]:
    """A runner registered as the registry's, the platform's elicitation raised over HTTP, and the drop-in waiting on it."""
    case = DropIn()
    async with tollgate.runner([case.sid]) as runner:
        registry.configure(runner)
        try:
            body = {"type": "response.elicitation_request", "elicitation_id": case.eid, "params": {"message": "Run `git push`?"}}
            status, reply = await tollgate.call(tollgate.service, "POST", f"/v1/sessions/{case.sid}/events", body)
            assert status == 201, reply
            case.waiting = asyncio.create_task(
                registry.wait_for_user_approval(
                    elicitation_id=case.eid,
                    conversation_id=case.sid,
                    publish_event=lambda s, e: case.published.append((s, e)),
                    timeout_seconds=timeout_seconds,
                )
            )
            await asyncio.sleep(0.2)
            yield case
        finally:
            registry.configure(None)
    assert case.published == [(case.sid, {"type": "response.elicitation_resolved", "elicitation_id": case.eid})]


@pytest.mark.parametrize(("action", "approved"), [("accept", True), ("decline", False), ("cancel", False)])
def test_the_drop_in_returns_true_only_on_accept(tollgate: Tollgate, run, action: str, approved: bool) -> None:
    async def scenario() -> None:
        async with drop_in(tollgate) as case:
            assert case.waiting is not None
            assert registry.has_pending(case.sid)
            assert (await tollgate.answer(case.sid, case.eid, action))[0] == 200
            assert await case.waiting is approved
            assert not registry.has_pending(case.sid)

    run(scenario())


def test_the_drop_in_timeout_is_false_and_closes_the_card(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        async with drop_in(tollgate, timeout_seconds=1) as case:
            assert case.waiting is not None
            assert await case.waiting is False
            verdict = (await tollgate.eventually(case.eid, "resolved"))["verdict"]
            assert (verdict["action"], verdict["reason"], verdict["resolved_by"]) == ("cancel", "cancelled", "runner-1")

    run(scenario())


def test_cancelling_the_drop_in_cancels_the_elicitation_and_still_publishes(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        async with drop_in(tollgate) as case:
            assert case.waiting is not None
            case.waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await case.waiting
            assert not registry.has_pending(case.sid)
            verdict = (await tollgate.eventually(case.eid, "resolved"))["verdict"]
            assert (verdict["action"], verdict["reason"]) == ("cancel", "cancelled")

    run(scenario())
