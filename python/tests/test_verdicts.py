"""A runner parks and gets the human's verdict: accept with the form's answers and who gave it, decline with words, the deadline, the local deadline."""

from __future__ import annotations

import asyncio

import pytest
from support import Proxy, Tollgate, fresh

from tollgate import Verdict

FORM = {
    "message": "Deploy the auth service?",
    "requestedSchema": {"type": "object", "properties": {"env": {"type": "string", "enum": ["staging", "prod"]}}, "required": ["env"]},
}


def test_accept_returns_the_verdict_with_the_answers(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid]) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, FORM, elicitation_id=eid))
            status, _ = await tollgate.answer(sid, eid, "accept", content={"env": "staging"})
            assert status == 200
            assert await waiting == Verdict(eid, sid, "accept", "answered", {"env": "staging"}, resolved_by="human-1")

    run(scenario())


def test_decline_carries_the_humans_message(tollgate: Tollgate, run) -> None:
    async def scenario() -> Verdict:
        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid]) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Force-push to main?"}, elicitation_id=eid))
            status, body = await tollgate.answer(sid, eid, "decline", message="Not on main: open a pull request")
            if status == 400:  # a server whose verdicts carry no message yet: the decline alone
                assert (await tollgate.answer(sid, eid, "decline"))[0] == 200
            else:
                assert status == 200, body
            verdict = await waiting
        assert (verdict.action, verdict.reason, verdict.approved) == ("decline", "answered", False)
        return verdict

    verdict = run(scenario())
    if verdict.message is None:
        pytest.skip("this server's verdict frame carries no message yet")
    assert verdict.message == "Not on main: open a pull request"


def test_the_deadline_declines_as_a_timeout(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid = fresh("conv")
        async with tollgate.runner([sid]) as runner:
            verdict = await runner.elicit(sid, {"message": "Anyone there?"}, timeout_seconds=1)
        assert (verdict.action, verdict.reason, verdict.resolved_by) == ("decline", "timeout", "tollgate")

    run(scenario())


def test_the_local_deadline_ends_a_wait_when_tollgate_is_out_of_reach(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        async with Proxy(tollgate.port) as proxy:
            async with tollgate.runner([sid], url=proxy.url(tollgate.ws_url), deadline_grace=0.5) as runner:
                waiting = asyncio.create_task(runner.elicit(sid, {"message": "Approve?"}, elicitation_id=eid, timeout_seconds=2))
                await tollgate.eventually(eid, "pending")
                proxy.refusing = True
                proxy.cut()
                verdict = await waiting
                assert runner.connection_id is None  # it never got back: the verdict is the local deadline's
        assert verdict == Verdict(eid, sid, "decline", "timeout")
        assert (await tollgate.eventually(eid, "resolved"))["verdict"]["reason"] == "timeout"  # the server's deadline agrees

    run(scenario())
