/**
 * `tollgate ask "<message>" --session ID`: park like a runner until a human (or the deadline)
 * decides, and exit by the verdict, so `tollgate ask "Deploy?" --session release && ./deploy.sh` works.
 */
import { randomUUID } from "node:crypto";
import type { Command } from "commander";
import { LIMITS } from "../functions/shared/schemas.js";
import { TollgateError, TollgateRunner, type FormParams, type Verdict } from "../sdk/runner.js";
import { CliError, EXIT } from "./exit.js";
import { note, paint, print, printJson } from "./output.js";
import { jsonObject, wholeNumber, settingsOf, tokenOf } from "./settings.js";
import { openSocket } from "./socket.js";

interface AskOptions {
  session: string;
  timeout?: string;
  schema?: string;
  parent?: string;
  title?: string;
}

/** The exit code and the word for a verdict: a timeout is never reported as a human's decline. */
export function outcome(verdict: Pick<Verdict, "action" | "reason">): { exitCode: number; word: string } {
  if (verdict.action === "accept") return { exitCode: EXIT.ok, word: paint.green("accepted") };
  if (verdict.reason === "timeout") return { exitCode: EXIT.timedOut, word: paint.yellow("timed out") };
  if (verdict.action === "decline") return { exitCode: EXIT.declined, word: paint.red("declined") };
  return { exitCode: EXIT.cancelled, word: paint.yellow(verdict.reason === "runner_gone" ? "cancelled (runner gone)" : "cancelled") };
}

async function ask(message: string, o: AskOptions, command: Command) {
  const settings = settingsOf(command);
  const { min, max } = LIMITS.timeoutSeconds;
  const timeoutSeconds = o.timeout === undefined ? undefined : wholeNumber(o.timeout, "--timeout", min, max);
  const params: FormParams = { message, ...(o.schema ? { requestedSchema: jsonObject(o.schema, "--schema") as FormParams["requestedSchema"] } : {}) };
  (await openSocket(settings)).terminate(); // the runner client retries forever: find out now whether Tollgate is there at all
  const session = { session_id: o.session, ...(o.parent ? { parent_session_id: o.parent } : {}), ...(o.title ? { title: o.title } : {}) };
  const runner = new TollgateRunner({ url: settings.wsUrl, token: tokenOf(settings), sessions: [session] });
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop).once("SIGTERM", stop);
  const elicitationId = `elicit_${randomUUID()}`;
  try {
    await runner.connect();
    let told = false;
    // Said once Tollgate has stored the wait, so a refused ask prints its refusal alone.
    const onParked = ({ deadline }: { deadline: string }) => {
      if (told) return;
      told = true;
      note(`${paint.dim("waiting for a verdict on")} ${paint.cyan(elicitationId)} ${paint.dim(`in session ${o.session} until ${deadline}: tollgate answer ${elicitationId} accept`)}`);
    };
    const verdict = await runner.elicit({ sessionId: o.session, elicitationId, params, timeoutSeconds, signal: abort.signal, onParked });
    const { exitCode, word } = outcome(verdict);
    if (settings.json) printJson(verdict);
    else {
      note(`${word} ${paint.dim(`(${verdict.reason})`)}`);
      if (verdict.content) print(JSON.stringify(verdict.content));
    }
    process.exitCode = exitCode;
  } catch (error) {
    if (abort.signal.aborted) {
      if (settings.json) printJson({ elicitation_id: elicitationId, action: "cancel", reason: "cancelled" });
      else note(outcome({ action: "cancel", reason: "cancelled" }).word);
      process.exitCode = EXIT.cancelled;
      return;
    }
    if (error instanceof TollgateError) throw new CliError(EXIT.refused, `${error.code}: ${error.message}`);
    throw error;
  } finally {
    process.off("SIGINT", stop).off("SIGTERM", stop);
    runner.close();
  }
}

export function askCommand(program: Command) {
  program
    .command("ask")
    .description("ask a human and wait; the exit code is the verdict (runner or service token)")
    .argument("<message>", "the question, as the human sees it")
    .requiredOption("--session <id>", "the session to ask in (registered if new)")
    .option("--timeout <seconds>", "the deadline: silence means decline, exit code 4 (default: one day)")
    .option("--schema <json>", "a form: an MCP requestedSchema; the answers are printed as JSON")
    .option("--parent <id>", "the session's parent, when registering it")
    .option("--title <title>", "the session's title, when registering it")
    .action(ask);
}
