/**
 * `tollgate demo`: a parent agent and its sub-agent against a running Tollgate, narrated step by
 * step: the child blocks on an approval, the parent is woken after the escalation grace, an answer
 * unblocks the child, and the parent hears that it was resolved.
 */
import { randomBytes } from "node:crypto";
import { Option, type Command } from "commander";
import { env } from "../functions/shared/env.js";
import { DEV_SECRET, mintToken } from "../local/tokens.js";
import { TollgateRunner, type SessionMessage } from "../sdk/runner.js";
import { CliError, EXIT } from "./exit.js";
import { call } from "./http.js";
import { paint, print, printJson } from "./output.js";
import { AgentPresence } from "./presence.js";
import { wholeNumber, settingsOf, type Settings } from "./settings.js";
import { openSocket } from "./socket.js";

/** The parent's inbox: notices in the order they arrive, awaited one at a time. */
function noticesOf() {
  const arrived: SessionMessage[] = [];
  let wake: (() => void) | undefined;
  return {
    onMessage(message: SessionMessage) {
      if (message.kind !== "notice") return;
      arrived.push(message);
      wake?.();
    },
    async next(waitSeconds: number, what: string): Promise<SessionMessage> {
      const deadline = Date.now() + waitSeconds * 1000;
      while (arrived.length === 0) {
        const left = deadline - Date.now();
        if (left <= 0) throw new CliError(EXIT.refused, `the parent heard no ${what} within ${waitSeconds} s (the runtime's escalation grace may be longer: --wait)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => (clearTimeout(timer), resolve());
        });
      }
      return arrived.shift()!;
    },
  };
}

async function demo(o: { wait: string; secret?: string }, command: Command) {
  const settings: Settings = settingsOf(command);
  const waitSeconds = wholeNumber(o.wait, "--wait", 1, 86_400);
  const token = settings.token ?? (await mintToken(o.secret || DEV_SECRET, { sub: "demo", tenant: "dev", role: "service" }, 3_600));
  const run = { ...settings, token };
  let step = 0;
  const say = (event: string, text: string, detail: Record<string, unknown> = {}) =>
    settings.json ? printJson({ step: ++step, event, text, ...detail }) : print(`${paint.bold(`${++step}.`)} ${text}`);

  (await openSocket(run)).terminate(); // one clear line if Tollgate is not there, before any runner retries
  const tag = randomBytes(3).toString("hex");
  const parentId = `demo-${tag}-parent`;
  const childId = `demo-${tag}-child`;
  const notices = noticesOf();
  const parent = new TollgateRunner({ url: run.wsUrl, token, sessions: [{ session_id: parentId, title: "demo:orchestrator" }], onMessage: notices.onMessage });
  const child = new TollgateRunner({ url: run.wsUrl, token, sessions: [{ session_id: childId, parent_session_id: parentId, title: "demo:deployer" }] });
  const subAgent = new AgentPresence();
  try {
    await parent.connect();
    say("parent_connected", `The parent agent connects as session ${paint.cyan(parentId)}.`, { session_id: parentId });
    await child.connect();
    say("child_connected", `Its sub-agent connects as session ${paint.cyan(childId)}, a child of the parent.`, { session_id: childId });

    const elicitationId = `elicit_demo_${tag}`;
    const verdict = subAgent.track(child.elicit({ sessionId: childId, elicitationId, params: { message: "Approve running 'git push origin main'?" }, signal: subAgent.signal }));
    verdict.catch(() => undefined); // awaited below; a refusal must not go unhandled meanwhile
    say("child_blocked", `The sub-agent asks "Approve running 'git push origin main'?" (${paint.cyan(elicitationId)}) and blocks until a human decides.`, { elicitation_id: elicitationId });

    say("waiting_for_grace", `Nobody answers. The parent hears nothing until the escalation grace has passed (${env.escalationGraceSeconds} on the runtime, 120 s by default).`);
    const block = await notices.next(waitSeconds, "block notice");
    say("parent_woken", `The parent is woken: ${paint.dim(block.text)}`, { text_received: block.text });

    await call(run, "POST", `/v1/sessions/${childId}/events`, { type: "approval", elicitation_id: elicitationId, action: "accept" });
    say("human_answered", `A human accepts (as \`tollgate answer ${elicitationId} accept\` would).`);
    const got = await verdict;
    say("child_unblocked", `The sub-agent gets its verdict, ${paint.green(got.action)} (${got.reason}), and runs 'git push'.`, { action: got.action, reason: got.reason });
    const resolution = await notices.next(waitSeconds, "resolution notice");
    say("parent_told_resolved", `The parent hears it was resolved: ${paint.dim(resolution.text)}`, { text_received: resolution.text });
    say("done", "Done.");
  } finally {
    await subAgent.gone(); // a demo that stops early withdraws its prompt: no human is left a stale approval
    child.close();
    parent.close();
  }
}

export function demoCommand(program: Command) {
  program
    .command("demo")
    .description("watch a parent agent and its sub-agent go through an approval, step by step (service token; minted for tenant dev when none is given)")
    .option("--wait <seconds>", "how long to wait for each notice to the parent", "600")
    .addOption(new Option("--secret <secret>", "the HS256 secret to mint the demo's token with, when no --token is given").env(env.jwtSecret))
    .action(demo);
}
