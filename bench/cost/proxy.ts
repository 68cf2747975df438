/**
 * A metering proxy on the DynamoDB endpoint. The runtime reaches DynamoDB only through its endpoint
 * (TOLLGATE_DYNAMODB_ENDPOINT, AWS's own protocol), so the bench stands in that seam: it asks DynamoDB
 * Local for `ReturnConsumedCapacity: "INDEXES"` on every data call the handlers make, records what it
 * reports (table and each index apart), and hands the handler the answer it would have had without the
 * question (no `ConsumedCapacity`, the body's CRC32 recomputed). Nothing inside the SDK is touched.
 */
import { Agent, createServer, request, type IncomingMessage, type Server } from "node:http";
import { crc32 } from "node:zlib";
import { DynamoDBClient, GetItemCommand, type GetItemCommandInput } from "@aws-sdk/client-dynamodb";
import { writeUnits, type Item } from "./sizes.js";

/** Operations that take `ReturnConsumedCapacity`. */
const metered = new Set(["GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems"]);
const reads = new Set(["GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"]);
const writes = new Set(["PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems"]);

interface Written {
  TableName: string;
  Key: Item;
}

/** The items a write changes, by table and key. */
function writtenBy(operation: string, input: Record<string, any>): Written[] {
  const keyOf = (p: Record<string, any>): Written => ({ TableName: p.TableName, Key: p.Key ?? { pk: p.Item.pk, sk: p.Item.sk } });
  if (operation !== "TransactWriteItems") return [keyOf(input)];
  return (input.TransactItems as Record<string, any>[]).flatMap((t) => (t.ConditionCheck ? [] : [keyOf(Object.values(t)[0] as Record<string, any>)]));
}

/** Sums the rule's units over the items of one write. */
function ruleUnits(before: (Item | undefined)[], after: (Item | undefined)[], transactional: boolean) {
  const total = { table_units: 0, index_units: {} as Record<string, number> };
  before.forEach((b, i) => {
    const u = writeUnits(b, after[i], transactional);
    total.table_units += u.table_units;
    for (const [name, n] of Object.entries(u.index_units)) total.index_units[name] = (total.index_units[name] ?? 0) + n;
  });
  return total;
}

interface Capacity {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

export interface MeteredCall {
  operation: string;
  table: string;
  /** What the call touches, from its keys: session, elicitation, pending, connection, subscriber, rate counter, message. */
  kinds: string[];
  /** Capacity DynamoDB Local reported: on the table itself and per global secondary index. */
  table_units: number;
  index_units: Record<string, number>;
  read: boolean;
  /**
   * A Query or Scan that found nothing, which DynamoDB Local reports as 0: AWS charges a read of nothing its
   * minimum (1 unit consistent, 0.5 eventually consistent), and these units are that minimum.
   */
  emptyRead?: boolean;
  /** A refused conditional write or a cancelled transaction: DynamoDB Local reports no capacity for it. */
  failed?: string;
  /** Items written or conditionally checked (a failed call is charged by them, see model.ts). */
  items: number;
  /** For writes: the units AWS's documented rules give for the real images before and after (sizes.ts). */
  rule?: { table_units: number; index_units: Record<string, number> };
  requestBytes: number;
  at: number;
}

const kindOf = (key: { pk?: { S?: string }; sk?: { S?: string } } | undefined): string => {
  const pk = key?.pk?.S ?? "";
  const sk = key?.sk?.S ?? "";
  if (pk.includes("#RATE#")) return "rate counter";
  if (pk.includes("#SUBSCRIBERS")) return "subscriber";
  if (sk === "SESSION" || sk === "ELICITATION" || sk === "CONNECTION") return sk.toLowerCase();
  if (sk.startsWith("P#")) return "pending";
  if (sk.startsWith("D#")) return "descendant";
  if (sk.startsWith("M#")) return "message";
  return pk ? "other" : "query";
};

/** The items a request names, for attribution: keys of writes, checks and reads (a Query names its partition). */
function itemsOf(operation: string, input: Record<string, any>): { kinds: string[]; table: string } {
  if (operation === "TransactWriteItems" || operation === "TransactGetItems") {
    const parts = (input.TransactItems as Record<string, any>[]).map((t) => Object.values(t)[0] as Record<string, any>);
    return { kinds: parts.map((p) => kindOf(p.Key ?? p.Item)), table: parts[0]?.TableName ?? "?" };
  }
  if (operation === "BatchWriteItem" || operation === "BatchGetItem") {
    const [table, list] = Object.entries(input.RequestItems as Record<string, any>)[0] ?? ["?", []];
    const keys = Array.isArray(list) ? list.map((r: any) => r.PutRequest?.Item ?? r.DeleteRequest?.Key) : list.Keys;
    return { kinds: keys.map(kindOf), table };
  }
  if (operation === "Query") {
    const partition = Object.values(input.ExpressionAttributeValues ?? {})[0] as { S?: string } | undefined;
    const pk = partition?.S ?? "";
    const kind = pk.includes("#SUBSCRIBERS") ? "subscriber" : pk.endsWith("#TARGETS") ? "notification targets" : input.IndexName ? `index ${input.IndexName}` : "session partition";
    return { kinds: [kind], table: input.TableName };
  }
  return { kinds: [kindOf(input.Key ?? input.Item)], table: input.TableName };
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function record(operation: string, input: Record<string, any>, status: number, output: Record<string, any>, requestBytes: number): MeteredCall {
  const { kinds, table } = itemsOf(operation, input);
  const reported: Capacity[] = [output.ConsumedCapacity ?? []].flat();
  const index_units: Record<string, number> = {};
  let table_units = 0;
  for (const c of reported) {
    table_units += c.Table?.CapacityUnits ?? c.CapacityUnits ?? 0;
    for (const [name, u] of Object.entries(c.GlobalSecondaryIndexes ?? {})) index_units[name] = (index_units[name] ?? 0) + (u.CapacityUnits ?? 0);
  }
  // "If you perform a read operation on an item that does not exist, DynamoDB still consumes provisioned read
  // throughput" (the developer guide's read consumption rules); DynamoDB Local reports it for GetItem, not for Query.
  const emptyRead = status < 400 && (operation === "Query" || operation === "Scan") && table_units === 0 && Object.values(index_units).every((u) => u === 0);
  if (emptyRead) {
    const minimum = input.ConsistentRead ? 1 : 0.5;
    if (input.IndexName) index_units[input.IndexName] = minimum;
    else table_units = minimum;
  }
  const failed =
    status >= 400
      ? String(output.__type ?? status)
          .split("#")
          .pop()
      : undefined;
  return { operation, table, kinds, table_units, index_units, read: reads.has(operation), emptyRead, failed, items: kinds.length, requestBytes, at: performance.timeOrigin + performance.now() };
}

export interface MeteringProxy {
  endpoint: string;
  calls: MeteredCall[];
  /** Calls sent on and not answered yet. */
  inFlight(): number;
  close(): Promise<void>;
}

/** A proxy in front of `upstream` (DynamoDB Local) that meters every data call. */
export async function startMeteringProxy(upstream: string): Promise<MeteringProxy> {
  const target = new URL(upstream);
  const calls: MeteredCall[] = [];
  const images = new DynamoDBClient({ endpoint: upstream, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  const read = (w: Written) => images.send(new GetItemCommand({ ...w, ConsistentRead: true } as GetItemCommandInput)).then((r) => r.Item as Item | undefined);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let open = 0;
  const server: Server = createServer(async (req, res) => {
    open++;
    res.once("close", () => open--);
    const body = await readAll(req);
    const [service, operation] = String(req.headers["x-amz-target"] ?? "").split(".");
    const meter = service?.startsWith("DynamoDB_") && metered.has(operation);
    const input = meter ? (JSON.parse(body.toString()) as Record<string, any>) : undefined;
    const asked = input?.ReturnConsumedCapacity && input.ReturnConsumedCapacity !== "NONE";
    const written = input && writes.has(operation) ? writtenBy(operation, input) : [];
    const before = await Promise.all(written.map(read));
    const sent = input && !asked ? Buffer.from(JSON.stringify({ ...input, ReturnConsumedCapacity: "INDEXES" })) : body;
    const upstreamReq = request(
      { agent, host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host, "content-length": sent.length } },
      async (up) => {
        let answer = await readAll(up);
        const headers = { ...up.headers };
        if (input) {
          const output = answer.length ? (JSON.parse(answer.toString()) as Record<string, any>) : {};
          const call = record(operation, input, up.statusCode ?? 0, output, body.length);
          if (written.length && !call.failed) call.rule = ruleUnits(before, await Promise.all(written.map(read)), operation === "TransactWriteItems");
          calls.push(call);
          if (!asked && "ConsumedCapacity" in output) {
            delete output.ConsumedCapacity;
            answer = Buffer.from(JSON.stringify(output));
            headers["x-amz-crc32"] = String(crc32(answer));
          }
        }
        headers["content-length"] = String(answer.length);
        res.writeHead(up.statusCode ?? 502, headers).end(answer);
      },
    );
    upstreamReq.on("error", (e) => res.writeHead(502).end(String(e)));
    upstreamReq.end(sent);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    inFlight: () => open,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), agent.destroy(), images.destroy(), server.close(() => r()))),
  };
}
