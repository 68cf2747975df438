/** `hello`: register and bind the runner's sessions, resume its elicitations, deliver queued messages. */
import { HelloFrame } from "./shared/schemas.js";
import { wsHandler } from "./lambda/ws.js";

export const handler = wsHandler(HelloFrame, async ({ caller, connection, frame }, { tollgate }) => {
  await tollgate.runners.hello(caller, connection, frame);
  return undefined; // hello.ok is pushed first, so the verdicts and messages that follow come after it
});
