/** `$default`: a frame that is not JSON or names no known action. */
import { badRequest } from "./shared/errors.js";
import { parseJsonObject } from "./shared/parse.js";
import { errorFrame, refOf, type WsEvent } from "./lambda/ws.js";

export const handler = async (event: WsEvent) => {
  try {
    const frame = parseJsonObject(event.body, "frame");
    return errorFrame(badRequest(typeof frame.action === "string" ? "unknown action" : "frame has no action"), refOf(frame));
  } catch (error) {
    return errorFrame(error);
  }
};
