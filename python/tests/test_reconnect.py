"""The socket cut 10 times during 100 elicitations: every wait ends once, with the human's verdict; a silent socket is noticed."""

from __future__ import annotations

import asyncio

from support import Proxy, Tollgate, fresh, mint_token

ELICITATIONS, CUTS, SESSIONS = 100, 10, 5


def test_ten_cuts_during_a_hundred_elicitations_lose_and_double_nothing(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sessions = [fresh("conv") for _ in range(SESSIONS)]
        ids = [fresh("elicit") for _ in range(ELICITATIONS)]
        given = {eid: ("accept" if i % 3 else "decline") for i, eid in enumerate(ids)}
        session_of = {eid: sessions[i % SESSIONS] for i, eid in enumerate(ids)}
        async with Proxy(tollgate.port) as proxy:
            async with tollgate.runner(sessions, url=proxy.url(tollgate.ws_url)) as runner:
                waits = [asyncio.create_task(runner.elicit(session_of[eid], {"message": f"Step {eid}?"}, elicitation_id=eid)) for eid in ids]
                batches = [ids[i :: CUTS + 1] for i in range(CUTS + 1)]
                for cut, batch in enumerate(batches):
                    # Verdicts given around each cut: some reach the live socket, some wait for the resume.
                    answers = asyncio.gather(*(tollgate.answer(session_of[eid], eid, given[eid]) for eid in batch))
                    if cut < CUTS:
                        await asyncio.sleep(0.05)
                        proxy.cut()
                    refused = [(status, body) for status, body in await answers if status != 200]
                    assert refused == []
                verdicts = await asyncio.gather(*waits)
                assert not any(runner.has_pending(s) for s in sessions)
            assert proxy.connections > CUTS  # it came back after every cut
        assert [v.elicitation_id for v in verdicts] == ids
        assert all((v.action, v.reason) == (given[v.elicitation_id], "answered") for v in verdicts)
        for eid in ids:  # and Tollgate holds the same verdict, resolved once
            assert (await tollgate.elicitation(eid))["verdict"]["action"] == given[eid]
        for sid in sessions:
            _, session = await tollgate.call(tollgate.human, "GET", f"/v1/sessions/{sid}")
            assert session["pending_elicitations_count"] == 0

    run(scenario(), timeout=300)


def test_a_silent_socket_is_noticed_by_the_keepalive_and_the_verdict_still_arrives(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        tokens: list[str] = []

        async def fresh_token() -> str:  # a token function is asked at every connect
            tokens.append(mint_token("runner", "runner-1"))
            return tokens[-1]

        async with Proxy(tollgate.port) as proxy:
            async with tollgate.runner([sid], url=proxy.url(tollgate.ws_url), token=fresh_token, ping_interval=0.2, reply_timeout=1.0) as runner:
                waiting = asyncio.create_task(runner.elicit(sid, {"message": "Approve?"}, elicitation_id=eid))
                await tollgate.eventually(eid, "pending")
                first = runner.connection_id
                proxy.silence()  # nothing more passes, and nothing closes
                await tollgate.answer(sid, eid, "accept")
                verdict = await waiting
                assert verdict.approved
                assert runner.connection_id not in (None, first)
            assert proxy.connections == 2
        assert len(tokens) == 2

    run(scenario())


def test_closing_the_runner_leaves_nothing_running(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        await asyncio.sleep(0)
        before = asyncio.all_tasks()
        async with tollgate.runner([sid]) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Approve?"}, elicitation_id=eid))
            await tollgate.answer(sid, eid, "accept")
            assert (await waiting).approved
        for _ in range(3):  # a cancelled task ends at its next turn
            await asyncio.sleep(0)
        assert asyncio.all_tasks() == before  # the keepalive too: it held the closed socket until its next ping

    run(scenario())
