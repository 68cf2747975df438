"""Cancelling the awaiting task cancels the elicitation; `has_pending` and the message gate follow the wait."""

from __future__ import annotations

import asyncio

import pytest
from support import Tollgate, fresh

from tollgate import SessionMessage


def test_cancelling_the_task_cancels_the_elicitation(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, parked_id, early_id = fresh("conv"), fresh("elicit"), fresh("elicit")
        async with tollgate.runner([sid]) as runner:
            parked = asyncio.create_task(runner.elicit(sid, {"message": "Run the migration?"}, elicitation_id=parked_id))
            await tollgate.eventually(parked_id, "pending")
            parked.cancel()
            # Cancelled before Tollgate even has it: the cancel follows the park.
            early = asyncio.create_task(runner.elicit(sid, {"message": "Drop the table?"}, elicitation_id=early_id))
            await asyncio.sleep(0)
            early.cancel()
            for task in (parked, early):
                with pytest.raises(asyncio.CancelledError):
                    await task
            assert not runner.has_pending(sid)
            for eid in (parked_id, early_id):
                verdict = (await tollgate.eventually(eid, "resolved"))["verdict"]
                assert (verdict["action"], verdict["reason"], verdict["resolved_by"]) == ("cancel", "cancelled", "runner-1")
            _, session = await tollgate.call(tollgate.human, "GET", f"/v1/sessions/{sid}")
            assert session["pending_elicitations_count"] == 0

    run(scenario())


def test_has_pending_is_true_only_while_parked(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, other, eid = fresh("conv"), fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid, other]) as runner:
            assert not runner.has_pending(sid)
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Approve?"}, elicitation_id=eid))
            await tollgate.eventually(eid, "pending")
            assert runner.has_pending(sid)
            assert not runner.has_pending(other)
            await tollgate.answer(sid, eid, "decline")
            await waiting
            assert not runner.has_pending(sid)

    run(scenario())


def test_messages_are_held_while_the_session_awaits_approval_and_delivered_after(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        received: list[tuple[SessionMessage, bool]] = []
        arrived = asyncio.Event()

        async with tollgate.runner([sid]) as runner:

            async def on_message(message: SessionMessage) -> None:
                received.append((message, runner.has_pending(sid)))
                arrived.set()

            runner.on_message(on_message)
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Ship it?"}, elicitation_id=eid))
            await tollgate.eventually(eid, "pending")
            status, body = await tollgate.call(tollgate.service, "POST", f"/v1/sessions/{sid}/messages", {"text": "also update the changelog"})
            assert (status, body["status"]) == (202, "held")
            await asyncio.sleep(0.5)
            assert received == []  # the gate is shut while the human has not answered
            await tollgate.answer(sid, eid, "accept")
            assert (await waiting).approved
            await asyncio.wait_for(arrived.wait(), 10)
            message, pending_then = received[0]
            assert (message.session_id, message.kind, message.text) == (sid, "message", "also update the changelog")
            assert pending_then is False  # it came after the verdict, to a runner no longer waiting
            assert len(received) == 1

    run(scenario())
