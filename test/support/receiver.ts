/** A webhook receiver on loopback: it records every request and answers as the test tells it (a status, or never). */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  status: number | "hung";
}

export async function startReceiver() {
  const received: Received[] = [];
  /** Per path: the statuses to answer in turn (the last one repeats); "hang" never answers. */
  const plans = new Map<string, (number | "hang")[]>();
  const hung: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const plan = plans.get(path) ?? [200];
      const next = plan.length > 1 ? plan.shift()! : plan[0];
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({ path, headers, body: Buffer.concat(chunks).toString("utf8"), status: next === "hang" ? "hung" : next });
      if (next === "hang") return void hung.push(req);
      res.writeHead(next, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    plan: (path: string, statuses: (number | "hang")[]) => plans.set(path, [...statuses]),
    at: (path: string) => received.filter((r) => r.path === path),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
