/** `npm start` without Java says what to install, not a stack trace. */
import { spawnSync } from "node:child_process";
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
