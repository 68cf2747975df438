/**
 * What a user gets from the registry works: `npm pack` of the runner package, installed into a
 * fresh project outside the repository, parks and is answered with plain `node`, over the global
 * WebSocket without `ws` and over `ws` once it is installed; its MCP types come from the official SDK it depends on.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTollgate, type Harness } from "./support/tollgate.js";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("..", import.meta.url));
const tsc = join(repo, "node_modules/typescript/bin/tsc");

const PARK = `
import { TollgateRunner } from "@tollgate/runner";
const { TOLLGATE_URL, TOLLGATE_TOKEN, SESSION, ELICITATION } = process.env;
let tokens = 0;
const runner = new TollgateRunner({ url: TOLLGATE_URL, token: async () => (tokens++, TOLLGATE_TOKEN), sessions: [{ session_id: SESSION }] });
try {
  const verdict = await runner.elicit({ sessionId: SESSION, elicitationId: ELICITATION, params: { message: "Ship it?" } });
  console.log(JSON.stringify({ verdict, tokens }));
} catch (error) {
  console.error(error.code, error.message);
  process.exitCode = 2;
} finally {
  runner.close();
}
`;

const TYPED = `
import { TollgateRunner, TollgateError, type Verdict } from "@tollgate/runner";
import { ELICITATION_CAPABILITY, mcpElicitationHandler } from "@tollgate/runner/mcp";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
const runner = new TollgateRunner({ url: "ws://127.0.0.1:1/ws", token: () => "t" });
const handler: (...args: Parameters<ReturnType<typeof mcpElicitationHandler>>) => Promise<ElicitResult> = mcpElicitationHandler(runner, "s");
const served: { form: object; url: object } = ELICITATION_CAPABILITY.elicitation;
const check = async (): Promise<boolean> => {
  const v: Verdict = await runner.elicit({ sessionId: "s", params: { message: "m" } });
  return v.action === "accept" && !(v instanceof TollgateError) && typeof handler === "function" && "url" in served;
};
export { check };
`;

let t: Harness;
let project: string;
beforeAll(async () => {
  t = await startTollgate();
  project = await mkdtemp(join(tmpdir(), "tollgate-runner-"));
}, 60_000);
afterAll(async () => {
  await t?.stop();
  if (project) await rm(project, { recursive: true, force: true });
});

/** Plain `node` in the project, with nothing of the repository in its environment. */
async function park(session: string, nodeArgs: string[] = []) {
  const elicitation = `${session}_el`;
  const child = run(process.execPath, [...nodeArgs, "park.mjs"], {
    cwd: project,
    env: { PATH: process.env.PATH, TOLLGATE_URL: t.runtime.wsUrl, TOLLGATE_TOKEN: await t.token("runner"), SESSION: session, ELICITATION: elicitation },
  });
  return { child, elicitation };
}

async function answer(session: string, elicitation: string) {
  const human = await t.token("human");
  await expect.poll(async () => (await t.http(human, "GET", `/v1/elicitations/${elicitation}`)).body?.status, { timeout: 20_000 }).toBe("pending");
  const answered = await t.http(human, "POST", `/v1/sessions/${session}/events`, { type: "approval", elicitation_id: elicitation, action: "accept", content: { ok: true } });
  expect(answered.status).toBe(200);
}

it("installs from its packed tarball and parks until a human answers, with and without ws", async () => {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: join(repo, "sdk") });
  const [{ filename, files }] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  const paths = files.map((f) => f.path);
  expect(paths).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/mcp.js", "dist/mcp.d.ts"]));
  expect(paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))).toEqual([]);

  await writeFile(join(project, "package.json"), JSON.stringify({ name: "fresh-project", private: true, type: "module" }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(project, filename)], { cwd: project });
  await writeFile(join(project, "park.mjs"), PARK);
  const installed = JSON.parse(await readFile(join(project, "node_modules/@tollgate/runner/package.json"), "utf8"));
  expect(installed.license).toBe("Apache-2.0");

  // Node 20 has no global WebSocket and ws is not installed: one clear line, no hang.
  const bare = await (await park("pack_bare")).child.catch((error: { code: number; stderr: string }) => error);
  expect(bare).toMatchObject({ code: 2 });
  expect((bare as { stderr: string }).stderr).toContain("no_websocket");

  // The runtime's global WebSocket (the token goes as ?token=).
  const global = await park("pack_global", ["--experimental-websocket"]);
  await answer("pack_global", global.elicitation);
  const overGlobal = JSON.parse((await global.child).stdout);
  expect(overGlobal.verdict).toMatchObject({ elicitation_id: global.elicitation, action: "accept", content: { ok: true }, reason: "answered" });
  expect(overGlobal.tokens).toBe(1);

  // ws, as a Node 20 user installs it (the token goes as a header).
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "ws@8"], { cwd: project });
  const ws = await park("pack_ws");
  await answer("pack_ws", ws.elicitation);
  expect(JSON.parse((await ws.child).stdout).verdict).toMatchObject({ elicitation_id: ws.elicitation, action: "accept", reason: "answered" });

  // Its types serve a TypeScript project, subpath export included.
  await writeFile(join(project, "typed.ts"), TYPED);
  const compilerOptions = { strict: true, noEmit: true, module: "nodenext", target: "es2022", types: [], lib: ["es2022", "dom"] };
  await writeFile(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["typed.ts"] }));
  await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project });
}, 240_000);
