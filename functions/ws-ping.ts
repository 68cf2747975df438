/** `ping`: keeps an idle connection open (API Gateway closes it after 10 minutes of silence). */
import { PingFrame } from "./shared/schemas.js";
import { wsHandler } from "./lambda/ws.js";

export const handler = wsHandler(PingFrame, async () => ({ type: "pong" }));
