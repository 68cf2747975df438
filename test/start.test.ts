/** `npm start` that cannot start says why in one clear line, never with a stack trace: no Java, a port taken. */
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("tells what to install when java is missing", () => {
  const bin = mkdtempSync(join(tmpdir(), "tollgate-nojava-"));
  symlinkSync(process.execPath, join(bin, "node")); // a PATH with node and nothing else
  const run = spawnSync(process.execPath, ["--import", "tsx", "local/main.ts"], {
    env: { ...process.env, PATH: bin, TOLLGATE_DATA_DIR: mkdtempSync(join(tmpdir(), "tollgate-data-")) },
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("DynamoDB Local needs Java 17 or newer");
  expect(run.stderr).toContain("apt-get install -y openjdk-17-jre-headless");
  expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
});

it("says in one line that its port is taken, and exits", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const port = (taken.address() as { port: number }).port;
  try {
    const run = spawn(process.execPath, ["--import", "tsx", "local/main.ts"], {
      env: { ...process.env, TOLLGATE_PORT: String(port), TOLLGATE_DATA_DIR: mkdtempSync(join(tmpdir(), "tollgate-data-")) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    run.stderr.on("data", (chunk) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve) => run.once("exit", resolve));
    expect(status).toBe(1);
    expect(stderr.trim()).toBe(`Tollgate could not start: port ${port} on 127.0.0.1 is already in use (set TOLLGATE_PORT to another port)`);
  } finally {
    taken.close();
  }
}, 60_000);
