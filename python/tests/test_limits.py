"""Frames over the contract's limits are refused before sending, with the contract's codes; the connection stays usable."""

from __future__ import annotations

import asyncio
import json

import pytest
from support import Tollgate, fresh, mint_token

from tollgate import Session, TollgateError, TollgateRunner
from tollgate.frames import FRAME_BYTES, encode, hellos

WIDE_FORM = {
    "message": "Fill in the release form",
    "requestedSchema": {
        "type": "object",
        "properties": {f"field_{i}": {"type": "string", "description": "é" * 1000} for i in range(32)},
    },
}


def test_params_over_24_kib_are_refused_before_sending(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid]) as runner:
            with pytest.raises(TollgateError) as refused:
                await runner.elicit(sid, WIDE_FORM, elicitation_id=eid)
            assert refused.value.code == "payload_too_large"
            assert not runner.has_pending(sid)
            status, _ = await tollgate.call(tollgate.human, "GET", f"/v1/elicitations/{eid}")
            assert status == 404  # nothing reached Tollgate
            with pytest.raises(TollgateError) as bad:
                await runner.elicit(sid, {"message": ""})
            assert bad.value.code == "bad_request"
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Still here?"}, elicitation_id=eid))
            await tollgate.answer(sid, eid, "accept")
            assert (await waiting).approved  # the same connection works on

    run(scenario())


def test_a_refused_token_ends_the_runner_with_unauthorized(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        runner = tollgate.runner([fresh("conv")], token=mint_token("runner", "runner-1", ttl_seconds=-60))
        with pytest.raises(TollgateError) as refused:
            await runner.connect()
        assert refused.value.code == "unauthorized"
        await runner.close()
        await asyncio.sleep(0)
        before = asyncio.all_tasks()
        with pytest.raises(TollgateError) as entered:
            async with tollgate.runner([fresh("conv")], token="not-a-token"):
                pass
        assert entered.value.code == "unauthorized"
        await asyncio.sleep(0)
        assert asyncio.all_tasks() == before  # a refused `async with` leaves nothing running

    run(scenario())


def test_a_token_function_that_raises_is_asked_again_and_three_failures_in_a_row_end_the_runner(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        calls = 0

        def flaky() -> str:  # a secrets store that is down for a moment
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("vault unavailable")
            return tollgate.runner_token

        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid], token=flaky) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Token came back?"}, elicitation_id=eid))
            await tollgate.answer(sid, eid, "accept")
            assert (await asyncio.wait_for(waiting, 30)).approved
        assert calls == 2

        def down() -> str:
            raise RuntimeError("vault unavailable")

        runner = tollgate.runner([sid], token=down)
        with pytest.raises(TollgateError) as failed:
            await asyncio.wait_for(runner.connect(), 30)
        assert failed.value.code == "token_provider_failed"
        assert "vault unavailable" in failed.value.message
        await runner.close()

    run(scenario())


def test_a_frame_over_32_kb_is_refused() -> None:
    with pytest.raises(TollgateError) as refused:
        encode({"action": "hello", "sessions": [{"session_id": "s", "title": "x" * FRAME_BYTES}]})
    assert refused.value.code == "payload_too_large"


def test_many_sessions_and_waits_go_in_as_many_hellos_as_fit() -> None:
    sessions = [Session(f"conv_{i}", title="界" * 256) for i in range(250)]
    resume = [f"elicit_{i:0120d}" for i in range(1_500)]
    frames = [hello.frame() for hello in hellos(sessions, resume)]
    assert all(len(encode({**frame, "ref": 10**9})) <= FRAME_BYTES for frame in frames)
    assert [s["session_id"] for f in frames for s in f["sessions"]] == [s.session_id for s in sessions]
    assert [r for f in frames for r in f["resume"]] == resume
    assert all(len(f["sessions"]) <= 100 and len(f["resume"]) <= 1_000 for f in frames)


def test_a_runner_with_more_sessions_than_one_frame_holds_registers_them_all(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        prefix = fresh("conv")
        sessions = [Session(f"{prefix}_{i}", title="界" * 256) for i in range(50)]
        assert len(json.dumps([s.wire() for s in sessions], ensure_ascii=False).encode()) > FRAME_BYTES
        async with TollgateRunner(tollgate.ws_url, tollgate.runner_token, sessions):
            ids = ",".join(s.session_id for s in sessions)
            status, body = await tollgate.call(tollgate.human, "GET", f"/v1/sessions?ids={ids}")
        assert status == 200
        assert [s["title"] for s in body["sessions"]] == ["界" * 256] * 50

    run(scenario())


@pytest.mark.parametrize("url", ["http://127.0.0.1:4000/ws", "127.0.0.1:4000/ws", "ws:///ws", "ws://127.0.0.1:port/ws"])
def test_a_url_that_is_no_websocket_address_is_refused_when_the_runner_is_made(url: str) -> None:
    # Such a URL once ended the connecting task unseen: `connect()` and every wait hung for good.
    with pytest.raises(TollgateError) as refused:
        TollgateRunner(url, "token")
    assert refused.value.code == "bad_request"
    assert "ws://" in refused.value.message


def test_a_cancel_refused_for_an_expired_token_goes_again_on_the_next_connection(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        tokens: list[str] = []

        def token() -> str:  # the first connection's token runs out within two seconds; the next ones last
            tokens.append(mint_token("runner", "runner-1", ttl_seconds=2 if not tokens else 3600))
            return tokens[-1]

        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid], token=token) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Deploy?"}, elicitation_id=eid))
            await tollgate.eventually(eid, "pending")
            first = runner.connection_id
            await asyncio.sleep(2)  # past the first token's exp: Tollgate refuses the next frame and closes
            verdict = await runner.cancel(eid)
            assert (verdict.action, verdict.reason) == ("cancel", "cancelled")
            assert (await waiting) == verdict
            assert runner.connection_id not in (None, first)
        assert len(tokens) == 2

    run(scenario())


def test_one_session_id_given_as_sessions_is_refused_not_read_as_its_letters() -> None:
    with pytest.raises(TollgateError) as refused:
        TollgateRunner("ws://127.0.0.1:4000/ws", "token", sessions="conv_1")
    assert refused.value.code == "bad_request"
    assert "['conv_1']" in refused.value.message


@pytest.mark.parametrize("timeout_seconds", ["600", float("nan"), float("inf"), [600]])
def test_a_timeout_that_is_no_number_of_seconds_is_refused_with_bad_request(run, timeout_seconds: object) -> None:
    async def scenario() -> None:
        runner = TollgateRunner("ws://127.0.0.1:4000/ws", "token", ["conv_1"])
        with pytest.raises(TollgateError) as refused:
            await runner.elicit("conv_1", {"message": "Approve?"}, timeout_seconds=timeout_seconds)  # type: ignore[arg-type]
        assert refused.value.code == "bad_request"
        assert not runner.has_pending("conv_1")
        await runner.close()

    run(scenario())


def test_a_token_function_whose_token_is_refused_is_asked_again_and_three_refusals_in_a_row_end_the_runner(tollgate: Tollgate, run) -> None:
    async def scenario() -> None:
        given: list[str] = []

        def once_stale() -> str:  # a cached token gone stale (or an issuer's keys not fetched yet): refused once
            given.append("not-a-token" if not given else tollgate.runner_token)
            return given[-1]

        sid, eid = fresh("conv"), fresh("elicit")
        async with tollgate.runner([sid], token=once_stale) as runner:
            waiting = asyncio.create_task(runner.elicit(sid, {"message": "Refused once, then in?"}, elicitation_id=eid))
            await tollgate.answer(sid, eid, "accept")
            assert (await waiting).approved
        assert len(given) == 2

        refused_calls = 0

        def always_refused() -> str:
            nonlocal refused_calls
            refused_calls += 1
            return "not-a-token"

        runner = tollgate.runner([sid], token=always_refused)
        with pytest.raises(TollgateError) as refused:
            await runner.connect()
        assert refused.value.code == "unauthorized"
        assert refused_calls == 3
        await runner.close()

    run(scenario())
