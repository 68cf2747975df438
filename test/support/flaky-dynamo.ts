/**
 * A pass-through HTTP proxy in front of DynamoDB Local that can be told to answer every request
 * with DynamoDB's own `InternalServerError` for a while: a bad minute of the real service, so a
 * handler's call fails after the AWS SDK's retries and the client sees `internal_error`.
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";

export async function flakyDynamo(target: string) {
  const upstream = new URL(target);
  let failing = false;
  let refused = 0;
  const server = createServer((req, res) => {
    if (failing) {
      refused++;
      res.writeHead(500, { "content-type": "application/x-amz-json-1.0", "x-amzn-errortype": "InternalServerError" });
      res.end(JSON.stringify({ __type: "com.amazonaws.dynamodb.v20120810#InternalServerError", message: "Internal server error" }));
      return req.resume();
    }
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Refuse every request until `heal()`. */
    fail: () => void (failing = true),
    heal: () => void (failing = false),
    refused: () => refused,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
