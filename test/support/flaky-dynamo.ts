/**
 * A pass-through HTTP proxy in front of DynamoDB Local that can be told to misbehave the way the
 * real service does: answer every request with `InternalServerError` for a while (a bad minute,
 * so a handler fails past the AWS SDK's retries), or cancel the next transactions with
 * `TransactionConflict` (another transaction held one of their items) or `ThrottlingError` (the
 * table or an index had no capacity left), or leave the keys of the next BatchGetItems unprocessed (as
 * DynamoDB does when it throttles a batch): DynamoDB Local does none of these.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

const JSON_10 = "application/x-amz-json-1.0";

function answer(res: ServerResponse, status: number, body: object) {
  res.writeHead(status, { "content-type": JSON_10 });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The messages DynamoDB gives with each cancellation reason. */
const messages: Record<string, string> = {
  TransactionConflict: "Transaction is ongoing for the item",
  ThrottlingError: "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.",
};

export async function flakyDynamo(target: string) {
  const upstream = new URL(target);
  let failing = false;
  let failingOperation: string | undefined;
  let cancelling = { n: 0, code: "TransactionConflict" };
  let unprocessed = 0;
  let refused = 0;
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    if (failing || (failingOperation !== undefined && req.headers["x-amz-target"] === `DynamoDB_20120810.${failingOperation}`)) {
      refused++;
      return answer(res, 500, { __type: "com.amazonaws.dynamodb.v20120810#InternalServerError", message: "Internal server error" });
    }
    if (unprocessed > 0 && req.headers["x-amz-target"] === "DynamoDB_20120810.BatchGetItem") {
      unprocessed--;
      refused++;
      const requestItems: Record<string, unknown> = JSON.parse(body.toString()).RequestItems;
      return answer(res, 200, { Responses: Object.fromEntries(Object.keys(requestItems).map((table) => [table, []])), UnprocessedKeys: requestItems });
    }
    if (cancelling.n > 0 && req.headers["x-amz-target"] === "DynamoDB_20120810.TransactWriteItems") {
      cancelling.n--;
      refused++;
      const items: unknown[] = JSON.parse(body.toString()).TransactItems;
      const reasons = items.map((_, i) => (i === items.length - 1 ? { Code: cancelling.code, Message: messages[cancelling.code] } : { Code: "None" }));
      return answer(res, 400, {
        __type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        Message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(", ")}]`,
        CancellationReasons: reasons,
      });
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (reply) => {
      res.writeHead(reply.statusCode ?? 502, reply.headers);
      reply.pipe(res);
    });
    forward.on("error", () => res.destroy());
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Refuse every request until `heal()`. */
    fail: () => void (failing = true),
    /** Refuse every request of one operation (`UpdateItem`, ...) until `heal()`. */
    failOperation: (operation: string) => void (failingOperation = operation),
    heal: () => void ((failing = false), (failingOperation = undefined)),
    /** Cancel the next `n` TransactWriteItems with a TransactionConflict. */
    conflictTransactions: (n: number) => void (cancelling = { n, code: "TransactionConflict" }),
    /** Cancel the next `n` TransactWriteItems with a ThrottlingError on their last item. */
    throttleTransactions: (n: number) => void (cancelling = { n, code: "ThrottlingError" }),
    /** Answer the next `n` BatchGetItems with every key unprocessed and nothing read. */
    leaveBatchGetsUnprocessed: (n: number) => void (unprocessed = n),
    /** Requests answered with a fault so far. */
    refused: () => refused,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
