/**
 * `tollgate hook claude-code`: a Claude Code `command` hook for `PreToolUse` and `PermissionRequest`
 * (docs/claude-code.md). It always exits 0 with a decision on stdout, a deny whenever it cannot
 * ask (Tollgate unreachable, a refused token, bad input): a hook that fails with another exit code
 * lets the tool call proceed, and silence is never consent.
 */
import { setTimeout as delay } from "node:timers/promises";
import { Option, type Command } from "commander";
import { decodeJwt } from "jose";
import { decisionOf, hookElicitationId, hookOutput, hookParams, hookSessions, HookInput, timedOut, type HookDecision } from "../sdk/claude-code.js";
import { TollgateRunner, type Verdict } from "../sdk/runner.js";
import { EXIT } from "./exit.js";
import { note, printJson } from "./output.js";
import { settingsOf, tokenOf, wholeNumber, type Settings } from "./settings.js";
import { openSocket } from "./socket.js";

interface HookOptions {
  timeout: string;
  onTimeout: "deny" | "ask";
}

/** After its deadline, how long the hook waits for its cancel to be confirmed before it answers anyway. */
const CANCEL_GRACE_MS = 3_000;

async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

function parseInput(text: string): HookInput {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error("the hook input on stdin is not JSON");
  }
  const parsed = HookInput.safeParse(json);
  if (!parsed.success) throw new Error(`the hook input is not a PreToolUse or PermissionRequest event: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/** The `sub` of a JWT, read but not verified: it only tells the hook's own cancel from another's. */
function subjectOf(token: string): string | undefined {
  try {
    return decodeJwt(token).sub;
  } catch {
    return undefined;
  }
}

/** Raise the card and park until the verdict or the deadline, whichever comes first. */
async function ask(settings: Settings, input: HookInput, o: { timeoutSeconds: number; onTimeout: "deny" | "ask" }): Promise<HookDecision> {
  const deadline = AbortSignal.timeout(o.timeoutSeconds * 1000);
  const { session, parent } = await hookSessions(input);
  (await openSocket(settings)).terminate(); // the runner retries forever: find out now whether Tollgate is there at all
  const runner = new TollgateRunner({ url: settings.wsUrl, token: tokenOf(settings), sessions: parent ? [parent, session] : [session] });
  try {
    const verdict = runner.elicit({
      sessionId: session.session_id,
      elicitationId: await hookElicitationId(input),
      params: hookParams(input),
      // The hook's own deadline cancels the card; Tollgate's, a little later, closes it should the hook be killed first.
      timeoutSeconds: o.timeoutSeconds + CANCEL_GRACE_MS / 1000,
      signal: deadline,
    });
    const late = new Promise<undefined>((resolve) => deadline.addEventListener("abort", () => resolve(delay(CANCEL_GRACE_MS, undefined, { ref: false })), { once: true }));
    const outcome: Verdict | undefined = await Promise.race([verdict, late]);
    return outcome ? decisionOf(outcome, o.onTimeout, o.timeoutSeconds, subjectOf(tokenOf(settings))) : timedOut(o.onTimeout, o.timeoutSeconds);
  } catch (error) {
    if (deadline.aborted) return timedOut(o.onTimeout, o.timeoutSeconds);
    throw error;
  } finally {
    runner.close();
  }
}

async function claudeCode(o: HookOptions, command: Command) {
  const text = await readStdin();
  let input: HookInput;
  try {
    input = parseInput(text);
  } catch (error) {
    // No event to shape a decision for: exit 2 is the one code with which Claude Code blocks the call.
    note(`tollgate: ${(error as Error).message}`);
    process.exitCode = EXIT.usage;
    return;
  }
  let decision: HookDecision;
  try {
    const settings = settingsOf(command);
    const timeoutSeconds = wholeNumber(o.timeout, "--timeout", 1, 3_600);
    decision = await ask(settings, input, { timeoutSeconds, onTimeout: o.onTimeout });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    decision = { behavior: "deny", message: `Denied: Tollgate could not ask a human (${why}).` };
  }
  const output = hookOutput(input.hook_event_name, decision);
  if (output) printJson(output);
}

export function hookCommand(program: Command) {
  const hook = program.command("hook").description("answer an agent tool's permission hook with a human's verdict");
  hook
    .command("claude-code")
    .description("a Claude Code command hook for PreToolUse and PermissionRequest: hook JSON on stdin, the decision on stdout")
    .option("--timeout <seconds>", "how long to wait for a human: keep it below the hook's timeout in settings.json", "540")
    .addOption(new Option("--on-timeout <choice>", "no verdict in time: deny, or ask (Claude Code's own prompt)").choices(["deny", "ask"]).default("deny"))
    .action(claudeCode);
}
