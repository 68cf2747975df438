/**
 * The gateway floor: what any design behind API Gateway pays for a verdict on this machine, whatever
 * its table. The human's POST through the gateway stand-in into a handler and back (refused 401 by
 * the handler's token check, so nothing else runs), one conditional UpdateItem (the floor's), and
 * one `@connections` POST through the stand-in to a WebSocket client, until the frame arrives.
 */
import { ApiGatewayManagementApiClient, PostToConnectionCommand } from "@aws-sdk/client-apigatewaymanagementapi";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { BenchSocket, httpClient } from "../clients.js";
import { floorTable, resolveOnce, seedPending } from "./floor.js";
import { now } from "../stats.js";

const credentials = { accessKeyId: "local", secretAccessKey: "local" };

export async function gatewayFloorPhase(urls: { httpUrl: string; wsUrl: string }, dynamoEndpoint: string, runnerToken: string, samples: number, tag: string) {
  const client = new DynamoDBClient({ endpoint: dynamoEndpoint, region: "us-east-1", credentials });
  const db = DynamoDBDocumentClient.from(client);
  const table = await floorTable(client);
  await seedPending(db, table, `${tag}-g`, samples);
  const http = httpClient(urls.httpUrl, 1);
  const socket = await BenchSocket.open(urls.wsUrl, runnerToken);
  const hello = await socket.request({ action: "hello", sessions: [{ session_id: `${tag}_gateway_floor` }] });
  const connectionId = hello.reply.connection_id as string;
  const connections = new ApiGatewayManagementApiClient({ endpoint: urls.httpUrl, region: "us-east-1", credentials });
  let arrived: ((at: number) => void) | undefined;
  socket.onFrame = (frame, at) => frame.type === "bench.floor" && arrived?.(at);
  const total: number[] = [];
  const httpHop: number[] = [];
  const push: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = now();
    const refused = await http.call("not-a-token", "POST", `/v1/sessions/${tag}_gateway_floor/events`, { type: "approval", elicitation_id: "x", action: "accept" });
    if (refused.status !== 401) throw new Error(`gateway floor: expected 401, got ${refused.status}`);
    const t1 = now();
    await resolveOnce(db, table, `${tag}-g${i}`);
    const t2 = now();
    const [at] = await Promise.all([
      new Promise<number>((resolve) => (arrived = resolve)),
      connections.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: JSON.stringify({ type: "bench.floor", i }) })),
    ]);
    httpHop.push(t1 - t0);
    push.push(at - t2);
    total.push(at - t0);
  }
  socket.close();
  http.close();
  connections.destroy();
  client.destroy();
  return { total, httpHop, push };
}
