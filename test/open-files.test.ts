/** The gateway's warning before the open-file limit refuses WebSocket connections without a word. */
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { openFileLimit, openFilesWatch } from "../local/open-files.js";

it("reads this process's open file limit as the shell reports it", () => {
  const shell = Number(execFileSync("sh", ["-c", "ulimit -n"]).toString().trim());
  expect(openFileLimit()).toBe(shell);
});

it("says once, when the open connections come within the margin of the limit", () => {
  const lines: string[] = [];
  const watch = openFilesWatch((line) => lines.push(line), { limit: 1_000, margin: 200 });
  for (const open of [1, 500, 799]) watch(open);
  expect(lines).toEqual([]);
  watch(800);
  watch(950);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/800 WebSocket connections open.*limit of 1000.*ulimit -n/);
  const unknown: string[] = [];
  openFilesWatch((line) => unknown.push(line), { limit: undefined, margin: 200 })(1_000_000);
  expect(unknown).toEqual([]);
});
