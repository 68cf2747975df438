/**
 * One event per function for its cold start, shaped as its trigger delivers it. Each names things
 * that do not exist (a session, an elicitation, a connection), so the handler does its first real
 * work (token check, schema, its first DynamoDB call) and answers "not found", changing nothing.
 * A WebSocket frame must pass its route's strict schema, or the handler would refuse it before any
 * of that work; `hello`, with no sessions, has nothing to read and makes its first call the push of
 * `hello.ok` (to a closed port here).
 */
import type { FunctionSpec } from "../../functions/catalog.js";

/** A valid frame of each route, from the role that may send it, so the handler gets past its schema to its first real work. */
const frames: Record<string, { role: "runner" | "human"; frame: object }> = {
  hello: { role: "runner", frame: { sessions: [] } },
  elicit: { role: "runner", frame: { session_id: "cold_session", params: { message: "cold?" } } },
  cancel: { role: "runner", frame: { elicitation_id: "cold_elicitation" } },
  subscribe: { role: "human", frame: { sessions: ["cold_session"] } },
};

export function coldEvent(spec: FunctionSpec, token: string): unknown {
  const t = spec.trigger;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  switch (t.kind) {
    case "http": {
      const path = t.path.replace("{id}", "cold_session");
      return {
        version: "2.0",
        routeKey: `${t.method} ${t.path}`,
        rawPath: path,
        rawQueryString: "",
        headers,
        pathParameters: t.path.includes("{id}") ? { id: "cold_session" } : undefined,
        requestContext: { http: { method: t.method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "bench" } },
        body: t.method === "GET" ? undefined : JSON.stringify({ type: "approval", elicitation_id: "cold_elicitation", action: "accept" }),
        isBase64Encoded: false,
      };
    }
    case "ws": {
      const { role, frame } = frames[t.route] ?? { role: "human", frame: {} };
      const authorizer = { principalId: `cold-${role}`, sub: `cold-${role}`, tenant: "bench-cost", role };
      return {
        body: JSON.stringify({ action: t.route, ...frame }),
        isBase64Encoded: false,
        requestContext: {
          connectionId: "cold_connection",
          connectedAt: Date.now(),
          routeKey: t.route,
          eventType: t.route === "$connect" ? "CONNECT" : t.route === "$disconnect" ? "DISCONNECT" : "MESSAGE",
          authorizer,
        },
        headers,
      };
    }
    case "ws-authorizer":
      return {
        type: "REQUEST",
        methodArn: "arn:aws:execute-api:us-east-1:000000000000:local/local/$connect",
        headers,
        requestContext: { connectionId: "cold_connection", routeKey: "$connect", eventType: "CONNECT" },
      };
    case "stream":
      return { Records: [] };
    case "timer":
      return { tenant: "bench-cost", elicitation_id: "cold_elicitation", connection_id: "cold_connection", round: 1 };
  }
}
