/**
 * EventBridge Scheduler's stand-in: answers the REST calls the real `@aws-sdk/client-scheduler`
 * makes (CreateSchedule, GetSchedule, DeleteSchedule), refuses what the service refuses
 * (`scheduler-rules.ts`), keeps one-time schedules in DynamoDB Local so a restart loses none, and
 * invokes each target when the runtime's clock reaches its time: to the millisecond, or up to
 * `jitterSeconds` late (uniformly), to rehearse the cloud's one-minute precision. Delivery is at
 * least once, as in the cloud.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { Clock } from "./clock.js";
import { functionNameOf, type Invoke } from "./lambda.js";
import { validate } from "./scheduler-rules.js";

interface Schedule {
  pk: string;
  name: string;
  group: string;
  expression: string;
  at: number;
  /** When this stand-in fires it: `at`, plus the jitter if one is set. */
  fires_at: number;
  target_arn: string;
  role_arn: string;
  input: string;
  created_at: number;
}

export interface SchedulerOptions {
  db: DynamoDBDocumentClient;
  stateTable: string;
  invoke: Invoke;
  clock: Clock;
  log: (line: string) => void;
  /** Fire each schedule this many times (2 rehearses at-least-once delivery). */
  copies?: number;
  jitterSeconds?: number;
}

const RETRIES = 3;

function send(res: ServerResponse, status: number, body: object, errorType?: string) {
  res.writeHead(status, { "content-type": "application/json", ...(errorType ? { "x-amzn-errortype": errorType } : {}) });
  res.end(JSON.stringify(errorType ? { __type: errorType, Message: (body as { Message?: string }).Message } : body));
}

const signed = (req: IncomingMessage) => (req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256");

export function createLocalScheduler(o: SchedulerOptions) {
  const { db, stateTable, clock, log } = o;
  const copies = o.copies ?? 1;
  const due = new Map<string, Schedule>();
  let cancelAlarm: (() => void) | undefined;
  let stopped = false;

  const keyOf = (group: string, name: string) => `schedule#${group}#${name}`;

  function arm() {
    cancelAlarm?.();
    cancelAlarm = undefined;
    if (stopped || due.size === 0) return;
    cancelAlarm = clock.at(Math.min(...[...due.values()].map((s) => s.fires_at)), fireDue);
  }

  async function fire(schedule: Schedule) {
    const name = functionNameOf(schedule.target_arn);
    for (let attempt = 1; attempt <= RETRIES && name; attempt++) {
      try {
        await Promise.all(Array.from({ length: copies }, () => o.invoke(name, JSON.parse(schedule.input))));
        break;
      } catch (error) {
        log(`schedule ${schedule.name}: target failed (attempt ${attempt}): ${(error as Error).message}`);
        // A stopped runtime neither retries nor deletes: the schedule stays for the next one to fire.
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 1_000 * attempt));
        if (stopped) return;
      }
    }
    // ActionAfterCompletion DELETE: gone once it ran, so a restart mid-run fires it again.
    await db.send(new DeleteCommand({ TableName: stateTable, Key: { pk: schedule.pk } }));
  }

  /** Fire what is due; resolves when those invocations are done (a stepped clock waits for them). */
  function fireDue() {
    const now = clock.now();
    const firing: Promise<void>[] = [];
    for (const schedule of due.values()) {
      if (schedule.fires_at > now) continue;
      due.delete(schedule.pk);
      firing.push(fire(schedule).catch((error) => log(`schedule ${schedule.name}: ${(error as Error).message}`)));
    }
    arm();
    return Promise.all(firing);
  }

  async function create(name: string, body: Record<string, unknown>, res: ServerResponse) {
    const now = clock.now();
    const request = validate(name, body, now);
    if (typeof request === "string") return send(res, 400, { Message: request }, "ValidationException");
    const { group } = request;
    const jitter = Math.random() * (o.jitterSeconds ?? 0) * 1000;
    const schedule: Schedule = {
      pk: keyOf(group, name),
      name,
      group,
      expression: request.expression,
      at: request.at,
      fires_at: request.at + jitter,
      target_arn: request.targetArn,
      role_arn: request.roleArn,
      input: request.input,
      created_at: now,
    };
    try {
      await db.send(new PutCommand({ TableName: stateTable, Item: schedule, ConditionExpression: "attribute_not_exists(pk)" }));
    } catch (error) {
      if ((error as Error).name === "ConditionalCheckFailedException") return send(res, 409, { Message: `Schedule ${name} already exists.` }, "ConflictException");
      throw error;
    }
    due.set(schedule.pk, schedule);
    arm();
    send(res, 200, { ScheduleArn: `arn:aws:scheduler:us-east-1:000000000000:schedule/${group}/${name}` });
  }

  async function read(name: string, group: string, res: ServerResponse) {
    const out = await db.send(new GetCommand({ TableName: stateTable, Key: { pk: keyOf(group, name) }, ConsistentRead: true }));
    const s = out.Item as Schedule | undefined;
    if (!s) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, "ResourceNotFoundException");
    send(res, 200, {
      Name: s.name,
      GroupName: s.group,
      ScheduleExpression: s.expression,
      ScheduleExpressionTimezone: "UTC",
      State: "ENABLED",
      ActionAfterCompletion: "DELETE",
      FlexibleTimeWindow: { Mode: "OFF" },
      Target: { Arn: s.target_arn, RoleArn: s.role_arn, Input: s.input },
      CreationDate: s.created_at / 1000,
    });
  }

  async function remove(name: string, group: string, res: ServerResponse) {
    const out = await db.send(new DeleteCommand({ TableName: stateTable, Key: { pk: keyOf(group, name) }, ReturnValues: "ALL_OLD" }));
    if (!out.Attributes) return send(res, 404, { Message: `Schedule ${name} does not exist.` }, "ResourceNotFoundException");
    due.delete(keyOf(group, name));
    arm();
    send(res, 200, {});
  }

  return {
    /** Reload what was scheduled before a restart. */
    async start() {
      let start: Record<string, unknown> | undefined;
      do {
        const out = await db.send(new ScanCommand({ TableName: stateTable, ExclusiveStartKey: start }));
        for (const item of (out.Items ?? []) as Schedule[]) if (item.pk.startsWith("schedule#")) due.set(item.pk, { ...item, fires_at: item.fires_at ?? item.at });
        start = out.LastEvaluatedKey;
      } while (start);
      arm();
    },
    stop() {
      stopped = true;
      cancelAlarm?.();
    },
    /** Names of the schedules still to fire. */
    pending(): string[] {
      return [...due.values()].map((s) => s.name);
    },
    /** `/schedules/{Name}`: true when it handled the request. */
    async handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<boolean> {
      const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      if (!match) return false;
      if (!signed(req)) {
        send(res, 403, { Message: "Missing Authentication Token" }, "UnrecognizedClientException");
        return true;
      }
      const name = decodeURIComponent(match[1]);
      const group = url.searchParams.get("groupName") ?? "default";
      if (req.method === "POST") await create(name, body ? JSON.parse(body) : {}, res);
      else if (req.method === "GET") await read(name, group, res);
      else if (req.method === "DELETE") await remove(name, group, res);
      else send(res, 405, { Message: "method not allowed" }, "ValidationException");
      return true;
    },
  };
}
export type LocalScheduler = ReturnType<typeof createLocalScheduler>;
