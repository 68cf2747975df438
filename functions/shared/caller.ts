/** What a handler hands the domain about who is calling and over which connection. */
import type { Claims } from "./schemas.js";

/** The identity of a verified token (HTTP) or of the `$connect` authorizer's context (WebSocket). */
export type Caller = Pick<Claims, "sub" | "tenant" | "role">;

/** A runner's WebSocket connection as a frame arrives on it; `connectedAt` orders a runner's successive connections. */
export interface Connection {
  id: string;
  connectedAt: number;
}
