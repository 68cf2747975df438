/**
 * A webhook receiver on loopback: it records every request and answers as the test tells it (a
 * status, never, or once the test releases it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The answer; "held" until `release` answers it. */
  status: number | "hung" | "held";
}

export async function startReceiver() {
  const received: Received[] = [];
  /** Per path: the statuses to answer in turn (the last one repeats); "hang" never answers, "hold" waits for `release`. */
  const plans = new Map<string, (number | "hang" | "hold")[]>();
  const hung: IncomingMessage[] = [];
  const held: { request: Received; res: ServerResponse }[] = [];
  const answer = (res: ServerResponse, status: number) => res.writeHead(status, { "content-type": "text/plain" }).end("ok");
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const plan = plans.get(path) ?? [200];
      const next = plan.length > 1 ? plan.shift()! : plan[0];
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const request: Received = { path, headers, body: Buffer.concat(chunks).toString("utf8"), status: next === "hang" ? "hung" : next === "hold" ? "held" : next };
      received.push(request);
      if (next === "hang") return void hung.push(req);
      if (next === "hold") return void held.push({ request, res });
      answer(res, next);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    plan: (path: string, statuses: (number | "hang" | "hold")[]) => plans.set(path, [...statuses]),
    at: (path: string) => received.filter((r) => r.path === path),
    /** Answer the requests held at `path` with `status`. */
    release: (path: string, status = 200) => {
      for (const h of held.filter((h) => h.request.path === path)) {
        held.splice(held.indexOf(h), 1);
        h.request.status = status;
        answer(h.res, status);
      }
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
