/** The Python runner client (python/): its pytest suite against the local runtime, run as part of `npm test`. */
import { spawn, spawnSync } from "node:child_process";
import { expect, inject, it } from "vitest";

const NEEDS =
  "The Python client's tests need Python 3.11+ with websockets and pytest. Install them with " +
  "`apt-get install -y python3 python3-websockets python3-pytest` (Debian, Ubuntu), or `pip install websockets pytest`; " +
  "set TOLLGATE_PYTHON to the interpreter that has them if it is not /usr/bin/python3 or python3 on PATH.";

/** The first interpreter that can run the suite: Debian's packages go with /usr/bin/python3, which may not be PATH's python3. */
function findPython(): string | undefined {
  const candidates = [process.env.TOLLGATE_PYTHON, "/usr/bin/python3", "python3"].filter((c): c is string => Boolean(c));
  const probe = "import sys, websockets, pytest; sys.exit(0 if sys.version_info >= (3, 11) else 1)";
  return candidates.find((python) => spawnSync(python, ["-c", probe], { stdio: "ignore" }).status === 0);
}

function pytest(python: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // The runtime the suite starts shares this run's DynamoDB Local instead of starting another.
    const child = spawn(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"], {
      env: { ...process.env, TOLLGATE_DYNAMODB_ENDPOINT: inject("dynamoEndpoint") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.once("exit", (code) => resolve({ code, output }));
  });
}

it("passes the Python client's tests (pytest python/tests)", async () => {
  const python = findPython();
  if (!python) throw new Error(NEEDS);
  const { code, output } = await pytest(python);
  expect(code, output).toBe(0);
  expect(output).toMatch(/\d+ passed/);
}, 900_000);
