/**
 * A human's side of an adapter test: the one pending card of a session, and a verdict on it over
 * HTTP. The runtime and the token are read when used (they are made in `beforeAll`).
 */
import { expect } from "vitest";
import { eventually, type Harness } from "./tollgate.js";

export interface Card {
  elicitation_id: string;
  prompt: string;
  fields?: string[];
}

export function human(runtime: () => Harness, token: () => string) {
  const path = (session: string) => `/v1/sessions/${encodeURIComponent(session)}`;
  return {
    /** The session's one pending card, once the adapter has raised it. */
    card: (session: string): Promise<Card> =>
      eventually(async () => {
        const peek = await runtime().http(token(), "GET", `${path(session)}/peek`);
        expect(peek.status).toBe(200);
        expect(peek.body.items).toHaveLength(1);
        return peek.body.items[0] as Card;
      }, 30_000),
    answer: (session: string, id: string, action: string, extra: object = {}) => runtime().http(token(), "POST", `${path(session)}/events`, { type: "approval", elicitation_id: id, action, ...extra }),
  };
}
