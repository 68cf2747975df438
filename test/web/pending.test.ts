/**
 * The inbox's own count of each session's pending elicitations (web/pending.js), by the protocol's rule:
 * the ids a session item lists, plus the requests heard since subscribed, minus the resolutions heard
 * since, whatever order the read and the events come in, and with events that come twice.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { countable, countOf, counted, heard, startOver } from "../../web/pending.js";

const request = (session_id: string, elicitation_id: string) => ({ type: "response.elicitation_request" as const, session_id, elicitation_id, params: { message: "?" }, created_at: "", deadline: "" });
const resolved = (session_id: string, elicitation_id: string) => ({
  type: "response.elicitation_resolved" as const,
  session_id,
  elicitation_id,
  action: "accept" as const,
  reason: "answered",
  resolved_by: "h",
  resolved_at: "",
});
const item = (session_id: string, ids: string[]) => ({ session_id, pending_elicitations_count: ids.length, pending_elicitation_ids: ids });

describe("counting pending elicitations without badges", () => {
  beforeEach(() => startOver());

  it("starts from the ids a session lists and follows the events", () => {
    expect(counted(item("s1", ["a", "b"]))).toBe(2);
    heard(request("s1", "c"));
    expect(countOf("s1")).toBe(3);
    heard(resolved("s1", "a"));
    expect(countOf("s1")).toBe(2);
    heard(resolved("s2", "x"));
    expect(countOf("s2")).toBe(0);
  });

  it("keeps what was heard while a read was on its way: a read older than an event does not undo it", () => {
    heard(request("s1", "c")); // heard before the read's answer, raised after the read
    heard(resolved("s1", "a")); // resolved after the read
    expect(counted(item("s1", ["a", "b"]))).toBe(2); // b and c
    expect(countOf("s1")).toBe(2);
  });

  it("never counts again an id once resolved, and counts a request heard twice once", () => {
    counted(item("s1", []));
    heard(request("s1", "a"));
    heard(request("s1", "a"));
    expect(countOf("s1")).toBe(1);
    heard(resolved("s1", "a"));
    heard(request("s1", "a")); // a retried push of the request, after its resolution
    expect(countOf("s1")).toBe(0);
    expect(counted(item("s1", ["a"]))).toBe(0); // a read that began before the resolution
  });

  it("forgets what the subscription before heard: a new one counts from the sessions read after it", () => {
    counted(item("s1", []));
    heard(request("s1", "a"));
    startOver(); // reconnected: a was resolved while the socket was down, and no event said so
    expect(counted(item("s1", []))).toBe(0);
  });

  it("takes the count of a session that lists fewer ids than it counts from its item, until one lists them all", () => {
    const many = { session_id: "s4", pending_elicitations_count: 101, pending_elicitation_ids: Array.from({ length: 100 }, (_, i) => `e${i}`) };
    expect(counted(many)).toBe(101);
    expect(countable("s4")).toBe(false);
    heard(resolved("s4", "e0"));
    heard(request("s4", "new"));
    expect(countOf("s4")).toBe(101); // what the item said, until it is read again
    expect(counted({ ...many, pending_elicitations_count: 100 })).toBe(100);
    expect(countable("s4")).toBe(true);
  });

  it("counts requests of a session not read yet, and joins them with its first read", () => {
    heard(request("s3", "n"));
    expect(countOf("s3")).toBe(1);
    expect(counted(item("s3", ["m"]))).toBe(2);
  });
});
