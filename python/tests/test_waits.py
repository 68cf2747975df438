"""Cancelling the awaiting task cancels the elicitation; `has_pending` and the message gate follow the wait."""

from __future__ import annotations

import asyncio

import pytest
from support import Proxy, Tollgate, fresh

from tollgate import SessionMessage


def test_cancelling_the_task_cancels_the_elicitation(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid]) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Run the migration?"}, elicitation_id=eid))
            await tollgate.eventually(eid, "pending")
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            assert not runner.has_pending(sid)
            verdict = (await tollgate.eventually(eid, "resolved"))["verdict"]
            assert (verdict["action"], verdict["reason"], verdict["resolved_by"]) == ("cancel", "cancelled", "runner-1")

    run(scenario())


def test_a_wait_cancelled_before_its_frame_went_out_never_reaches_tollgate(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, early, later = fresh("conv"), fresh("elicit"), fresh("elicit")
        async with Proxy(tollgate.port) as proxy:
            proxy.refusing = True  # no connection yet: the elicit waits for one
            runner = tollgate.runner([sid], url=proxy.url(tollgate.ws_url))
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Drop the table?"}, elicitation_id=early))
            await asyncio.sleep(0.3)
            waiting.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiting
            proxy.refusing = False
            next_one = asyncio.create_task(runner.elicit(sid, {"message": "Vacuum instead?"}, elicitation_id=later))
            await tollgate.eventually(later, "pending")  # connected, and every wait's frame has gone out
            status, _ = await tollgate.call(tollgate.human, "GET", f"/v1/elicitations/{early}")
            assert status == 404  # no card ever showed
            await tollgate.answer(sid, later, "accept")
            assert (await next_one).approved
            await runner.close()

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
