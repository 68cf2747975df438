/** `tollgate targets add|list|rm|rotate`: the tenant's notification targets (docs/notifications.md), with a service token. */
import { Option, type Command } from "commander";
import { NOTIFICATION_LIMITS, NotificationEvent, PutTargetBody, type NotificationTarget } from "../functions/shared/notification-schemas.js";
import { Id } from "../functions/shared/schemas.js";
import { usageError } from "./exit.js";
import { call, reply } from "./http.js";
import { note, paint, print, printJson, table } from "./output.js";
import { settingsOf, wholeNumber } from "./settings.js";

interface AddOptions {
  kind: "webhook" | "slack";
  targetUrl: string;
  events?: string;
  sessions?: string;
  remindAfter?: string;
  remindTimes?: string;
}

/** Each body field's flag, so a refusal names what the user typed. */
const FLAGS: Record<string, string> = { kind: "--kind", url: "--target-url", events: "--events", sessions: "--sessions", remind_after_seconds: "--remind-after", remind_times: "--remind-times" };

const commaList = (value: string | undefined) =>
  value
    ?.split(",")
    .map((part) => part.trim())
    .filter(Boolean);

const targetPath = (id: string) => {
  const checked = Id.safeParse(id);
  if (!checked.success) throw usageError(`the target id ${checked.error.issues[0].message}`);
  return `/v1/notification-targets/${encodeURIComponent(id)}`;
};

function httpUrl(value: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : "";
  if (protocol !== "https:" && protocol !== "http:") throw usageError(`--target-url is not an http(s) URL: ${value}`);
  return value;
}

/** The PUT body from the flags, checked with the API's own schema. */
function bodyOf(o: AddOptions): PutTargetBody {
  const { min, max } = NOTIFICATION_LIMITS.remindAfterSeconds;
  const times = NOTIFICATION_LIMITS.remindTimes;
  const body = {
    kind: o.kind,
    url: httpUrl(o.targetUrl),
    events: commaList(o.events),
    sessions: commaList(o.sessions),
    remind_after_seconds: o.remindAfter === undefined ? undefined : wholeNumber(o.remindAfter, "--remind-after", min, max),
    remind_times: o.remindTimes === undefined ? undefined : wholeNumber(o.remindTimes, "--remind-times", times.min, times.max),
  };
  const checked = PutTargetBody.safeParse(body);
  if (checked.success) return checked.data;
  const [field, index] = checked.error.issues[0].path;
  const value = typeof index === "number" ? ` "${(body[field as "events"] ?? [])[index]}"` : "";
  const message = checked.error.issues[0].message.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (word) => FLAGS[word] ?? word); // "needs remind_after_seconds" names its flag
  throw usageError(`${FLAGS[String(field)]}${value}: ${message}`);
}

const ALL_EVENTS = NotificationEvent.options.join(",");

function printTargets(targets: NotificationTarget[]) {
  if (targets.length === 0) return print(paint.dim("no notification targets"));
  const rows = targets.map((t) => [
    t.target_id,
    t.kind,
    t.events.join(",") === ALL_EVENTS ? "all" : t.events.join(","),
    t.sessions?.join(",") ?? "all",
    t.remind_after_seconds ? `${t.remind_times}x${t.remind_after_seconds}s` : "-",
    t.url,
    t.disabled_reason ? paint.red(`disabled: ${t.disabled_reason}`) : paint.green("enabled"),
  ]);
  for (const line of table(["ID", "KIND", "EVENTS", "SESSIONS", "REMIND", "URL", "STATE"], rows)) print(line);
}

/** A secret is in this one reply only: say so where a human reads it. */
function printSecret(secret: string) {
  print(`signing secret: ${secret}`);
  note(paint.yellow("it is shown only this once: keep it where the receiver verifies deliveries"));
}

export function targetsCommand(program: Command) {
  const targets = program.command("targets").description("the tenant's notification targets: webhooks and Slack (service token)");
  targets
    .command("add")
    .description("create a target (or change the one with this id); a webhook's signing secret is printed once")
    .argument("<id>", "the target's id, 1 to 128 of A-Z a-z 0-9 _ . : -")
    .addOption(new Option("--kind <kind>", "a signed webhook or a Slack incoming webhook").choices(PutTargetBody.shape.kind.options).makeOptionMandatory())
    // Not `--url`: that is every command's Tollgate API URL.
    .requiredOption("--target-url <url>", "where deliveries are posted")
    .option("--events <list>", `comma-separated, of ${ALL_EVENTS} (default: all)`)
    .option("--sessions <list>", "comma-separated session ids: only these and their descendants (default: all)")
    .option("--remind-after <seconds>", "remind while a prompt stays pending, every this many seconds")
    .option("--remind-times <n>", "remind at most this many times (1 to 24, default 3; with --remind-after)")
    .action(async (id: string, o: AddOptions, command: Command) => {
      const settings = settingsOf(command);
      const { status, body } = await reply<NotificationTarget>(settings, "PUT", targetPath(id), bodyOf(o));
      if (settings.json) return printJson(body);
      print(`${status === 201 ? "created" : "changed"} ${body.kind} target ${paint.cyan(body.target_id)}: ${body.url}`);
      if (body.secret) printSecret(body.secret);
    });
  targets
    .command("list")
    .description("every target of the tenant, with its state (--json: one target per line)")
    .action(async (_o: object, command: Command) => {
      const settings = settingsOf(command);
      const list = await call<{ targets: NotificationTarget[] }>(settings, "GET", "/v1/notification-targets");
      if (settings.json) list.targets.forEach(printJson);
      else printTargets(list.targets);
    });
  targets
    .command("rm")
    .description("delete a target: nothing more goes to it")
    .argument("<id>", "the target's id")
    .action(async (id: string, _o: object, command: Command) => {
      const settings = settingsOf(command);
      const deleted = await call(settings, "DELETE", targetPath(id));
      if (settings.json) return printJson(deleted);
      print(`deleted target ${paint.cyan(id)}`);
    });
  targets
    .command("rotate")
    .description("a new signing secret for a webhook target, printed once; deliveries are signed with it from now on")
    .argument("<id>", "the target's id")
    .action(async (id: string, _o: object, command: Command) => {
      const settings = settingsOf(command);
      const rotated = await call<NotificationTarget>(settings, "POST", `${targetPath(id)}/rotate`);
      if (settings.json) return printJson(rotated);
      print(`rotated the signing secret of ${paint.cyan(rotated.target_id)}`);
      printSecret(rotated.secret ?? "");
    });
}
