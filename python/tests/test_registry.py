"""The drop-in `wait_for_user_approval`: parks on the elicitation the platform raised, True only on accept."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from support import Tollgate, fresh

from tollgate import registry


async def _raise(tollgate: Tollgate, sid: str, eid: str, timeout_seconds: int = 600) -> None:
    """The agent platform raises the elicitation over HTTP, as it publishes its request event."""
    body = {"type": "response.elicitation_request", "elicitation_id": eid, "params": {"message": "Run `git push`?"}, "timeout_seconds": timeout_seconds}
    status, reply = await tollgate.call(tollgate.service, "POST", f"/v1/sessions/{sid}/events", body)
    assert status == 201, reply


@pytest.mark.parametrize(("action", "approved"), [("accept", True), ("decline", False), ("cancel", False)])
def test_the_drop_in_returns_true_only_on_accept(tollgate: Tollgate, run, action: str, approved: bool) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        published: list[tuple[str, dict[str, Any]]] = []
        async with tollgate.runner([sid]) as runner:
            registry.configure(runner)
            await _raise(tollgate, sid, eid)
            waiting = asyncio.create_task(
                registry.wait_for_user_approval(elicitation_id=eid, conversation_id=sid, publish_event=lambda s, e: published.append((s, e)))
            )
            await asyncio.sleep(0.2)
            assert registry.has_pending(sid)
            status, _ = await tollgate.answer(sid, eid, action)
            assert status == 200
            assert await waiting is approved
            assert not registry.has_pending(sid)
        assert published == [(sid, {"type": "response.elicitation_resolved", "elicitation_id": eid})]

    try:
        run(scenario())
    finally:
        registry.configure(None)


def test_the_drop_in_timeout_is_false_and_closes_the_card(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        published: list[tuple[str, dict[str, Any]]] = []
        async with tollgate.runner([sid]) as runner:
            registry.configure(runner)
            await _raise(tollgate, sid, eid)
            approved = await registry.wait_for_user_approval(
                elicitation_id=eid, conversation_id=sid, publish_event=lambda s, e: published.append((s, e)), timeout_seconds=1
            )
            assert approved is False
            verdict = (await tollgate.eventually(eid, "resolved"))["verdict"]
            assert (verdict["action"], verdict["reason"], verdict["resolved_by"]) == ("cancel", "cancelled", "runner-1")
        assert len(published) == 1

    try:
        run(scenario())
    finally:
        registry.configure(None)


def test_cancelling_the_drop_in_cancels_the_elicitation_and_still_publishes(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        published: list[tuple[str, dict[str, Any]]] = []
        async with tollgate.runner([sid]) as runner:
            registry.configure(runner)
            await _raise(tollgate, sid, eid)
            waiting = asyncio.create_task(
                registry.wait_for_user_approval(elicitation_id=eid, conversation_id=sid, publish_event=lambda s, e: published.append((s, e)))
            )
            await asyncio.sleep(0.2)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert not registry.has_pending(sid)
            verdict = (await tollgate.eventually(eid, "resolved"))["verdict"]
            assert (verdict["action"], verdict["reason"]) == ("cancel", "cancelled")
        assert len(published) == 1

    try:
        run(scenario())
    finally:
        registry.configure(None)
