"""The README's examples, run as they are written, against the local runtime (a human answers them here)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

from support import Tollgate, fresh

PACKAGE = Path(__file__).resolve().parents[1]
EXAMPLES = re.findall(r"```python\n(.*?)```", (PACKAGE / "README.md").read_text(), re.S)


async def _example(tollgate: Tollgate, code: str) -> asyncio.subprocess.Process:
    env = {**os.environ, "TOLLGATE_URL": tollgate.ws_url, "TOLLGATE_TOKEN": tollgate.runner_token, "PYTHONPATH": str(PACKAGE / "src")}
    return await asyncio.create_subprocess_exec(sys.executable, "-c", code, env=env, stdout=asyncio.subprocess.PIPE)


async def _pending(tollgate: Tollgate, sid: str) -> str:
    """The id of the session's first pending elicitation, once there is one."""
    for _ in range(1000):
        status, body = await tollgate.call(tollgate.human, "GET", f"/v1/sessions/{sid}")
        if status == 200 and body["pending_elicitations"]:
            return str(body["pending_elicitations"][0]["elicitation_id"])
        await asyncio.sleep(0.02)
    raise AssertionError(f"nothing became pending in {sid}")


def test_the_readme_has_both_examples() -> None:
    assert len(EXAMPLES) == 2


def test_the_park_example_prints_the_humans_verdict(tollgate: Tollgate, run) -> None:
    async def scenario() -> bytes:
        sid = fresh("conv")
        example = await _example(tollgate, EXAMPLES[0].replace("conv_1", sid))
        await tollgate.answer(sid, await _pending(tollgate, sid), "accept")
        out, _ = await example.communicate()
        assert example.returncode == 0
        return out

    assert run(scenario()).decode().splitlines() == ["accept answered True"]


def test_the_drop_in_example_waits_on_the_platforms_elicitation(tollgate: Tollgate, run) -> None:
    async def scenario() -> bytes:
        sid, eid = fresh("conv"), fresh("elicit")
        example = await _example(tollgate, EXAMPLES[1].replace("conv_1", sid).replace("elicit_1", eid))
        request = {"type": "response.elicitation_request", "elicitation_id": eid, "params": {"message": "Run `rm -rf build`?"}}
        for _ in range(1000):  # the platform raises it once the runner has registered the session
            status, _ = await tollgate.call(tollgate.service, "POST", f"/v1/sessions/{sid}/events", request)
            if status == 201:
                break
            await asyncio.sleep(0.02)
        await tollgate.answer(sid, eid, "decline")
        out, _ = await example.communicate()
        assert example.returncode == 0
        return out

    assert run(scenario()).decode().splitlines() == ["published response.elicitation_resolved", "refused False"]
