"""The local runtime (`local/main.ts`) on a free port for the whole test session, and what the tests need around it."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import SECRET, Tollgate

REPO = Path(__file__).resolve().parents[2]
READY_WITHIN_SECONDS = 120


def _start(data_dir: str) -> tuple[subprocess.Popen[str], str, list[str]]:
    env = {
        **os.environ,
        "TOLLGATE_PORT": "0",
        "TOLLGATE_JWT_SECRET": SECRET,
        "TOLLGATE_DATA_DIR": data_dir,
        # Shorter than the default 300 s, and long enough for a busy machine to work through every resume after ten cuts.
        "TOLLGATE_RECONNECT_GRACE_SECONDS": "120",
        "TOLLGATE_STREAM_POLL_MS": "20",
        "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED": "true",
    }
    if shutil.which("node") is None or not (REPO / "node_modules" / "tsx").exists():
        pytest.exit("the tests start the local runtime: install Node 20+ and run `npm ci` in the repository first", 2)
    process = subprocess.Popen(
        ["node", "--import", "tsx", "local/main.ts"], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert process.stdout is not None
    lines: list[str] = []
    ws_url = None
    started = time.monotonic()
    for line in process.stdout:
        lines.append(line.rstrip())
        match = re.match(r"^WebSocket\s+(ws://\S+)", line)
        if match:
            ws_url = match.group(1)
        if line.strip() == "ready" or time.monotonic() - started > READY_WITHIN_SECONDS:
            break
    if ws_url is None or lines[-1:] != ["ready"]:
        process.kill()
        pytest.exit("the local runtime did not start:\n" + "\n".join(lines[-40:]), 2)
    threading.Thread(target=_drain, args=(process, lines), daemon=True).start()
    return process, ws_url, lines


def _drain(process: subprocess.Popen[str], lines: list[str]) -> None:
    """Keep reading the runtime's output, so a full pipe never stalls it."""
    for line in process.stdout or []:
        lines.append(line.rstrip())


@pytest.fixture(scope="session")
def tollgate() -> Iterator[Tollgate]:
    data_dir = tempfile.mkdtemp(prefix="tollgate-python-")
    process, ws_url, _ = _start(data_dir)
    try:
        yield Tollgate(ws_url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture()
def run():
    """Run a test's coroutine on a fresh event loop, bounded so a lost verdict fails the test instead of hanging it."""

    def runner(coroutine, timeout: float = 90.0):
        return asyncio.run(asyncio.wait_for(coroutine, timeout))

    return runner
