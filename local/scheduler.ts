/**
 * EventBridge Scheduler's stand-in: answers the REST calls the real `@aws-sdk/client-scheduler`
 * makes (CreateSchedule, GetSchedule, DeleteSchedule), keeps one-time schedules in DynamoDB Local
 * so a restart loses none, and invokes each target at its time (to the millisecond, where the
 * cloud fires within a minute). Delivery is at least once, as in the cloud.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { functionNameOf, invoke } from "./lambda.js";

interface Schedule {
  pk: string;
  name: string;
  group: string;
  expression: string;
  at: number;
  target_arn: string;
  role_arn: string;
  input: string;
  created_at: number;
}

const RETRIES = 3;

function parseAt(expression: string): number | undefined {
  const match = /^at\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\)$/.exec(expression);
  return match ? Date.parse(`${match[1]}Z`) : undefined;
}

function send(res: ServerResponse, status: number, body: object, errorType?: string) {
  res.writeHead(status, { "content-type": "application/json", ...(errorType ? { "x-amzn-errortype": errorType } : {}) });
  res.end(JSON.stringify(errorType ? { __type: errorType, Message: (body as { Message?: string }).Message } : body));
}

export function createLocalScheduler(db: DynamoDBDocumentClient, stateTable: string, log: (line: string) => void, copies = 1) {
  const due = new Map<string, Schedule>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const keyOf = (group: string, name: string) => `schedule#${group}#${name}`;

  function arm() {
    clearTimeout(timer);
    if (stopped || due.size === 0) return;
    const next = Math.min(...[...due.values()].map((s) => s.at));
    timer = setTimeout(fireDue, Math.max(0, Math.min(next - Date.now(), 2 ** 31 - 1)));
  }

  async function fire(schedule: Schedule) {
    const name = functionNameOf(schedule.target_arn);
    for (let attempt = 1; attempt <= RETRIES && name; attempt++) {
      try {
        await Promise.all(Array.from({ length: copies }, () => invoke(name, JSON.parse(schedule.input))));
        break;
      } catch (error) {
        log(`schedule ${schedule.name}: target failed (attempt ${attempt}): ${(error as Error).message}`);
        await new Promise((r) => setTimeout(r, 1_000 * attempt));
      }
    }
    // ActionAfterCompletion DELETE: gone once it ran, so a restart mid-run fires it again.
    await db.send(new DeleteCommand({ TableName: stateTable, Key: { pk: schedule.pk } }));
  }

  function fireDue() {
    const now = Date.now();
    for (const schedule of due.values()) {
      if (schedule.at > now) continue;
      due.delete(schedule.pk);
      void fire(schedule).catch((error) => log(`schedule ${schedule.name}: ${(error as Error).message}`));
    }
    arm();
  }

  async function create(name: string, body: Record<string, any>, res: ServerResponse) {
    const group = body.GroupName ?? "default";
    const at = parseAt(body.ScheduleExpression ?? "");
    if (at === undefined || !body.Target?.Arn) return send(res, 400, { Message: "only one-time at() schedules with a target" }, "ValidationException");
    const schedule: Schedule = {
      pk: keyOf(group, name),
      name,
      group,
      expression: body.ScheduleExpression,
      at,
      target_arn: body.Target.Arn,
      role_arn: body.Target.RoleArn ?? "",
      input: body.Target.Input ?? "{}",
      created_at: Date.now(),
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
        for (const item of (out.Items ?? []) as Schedule[]) if (item.pk.startsWith("schedule#")) due.set(item.pk, item);
        start = out.LastEvaluatedKey;
      } while (start);
      arm();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
    /** `/schedules/{Name}`: true when it handled the request. */
    async handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): Promise<boolean> {
      const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
      if (!match) return false;
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
