/** Lifecycle rule 5 (docs/protocol.md): the notice words, label and prompt excerpt. */
import { describe, expect, it } from "vitest";
import { blockNotice, childLabel, promptExcerpt, resolutionNotice } from "../functions/domain/notices.js";

describe("child label", () => {
  it.each([
    [{ session_id: "conv_1", title: "codex:auth-refactor" }, "codex/auth-refactor"],
    [{ session_id: "conv_1", title: "codex:auth-refactor:closed:2026-11-29" }, "codex/auth-refactor"],
    [{ session_id: "conv_1", title: "codex::closed:x" }, "codex"],
    [{ session_id: "conv_1", title: "claude:fix: the bug" }, "claude/fix: the bug"],
    [{ session_id: "conv_1", title: "nightly cleanup" }, "nightly cleanup"],
    [{ session_id: "conv_1", title: "" }, "conv_1"],
    [{ session_id: "conv_1" }, "conv_1"],
  ])("%o -> %s", (session, label) => expect(childLabel(session)).toBe(label));
});

describe("prompt excerpt", () => {
  const of = (n: number) => "a".repeat(n);
  it("keeps 199 and 200 characters whole", () => {
    expect(promptExcerpt(of(199))).toBe(of(199));
    expect(promptExcerpt(of(200))).toBe(of(200));
  });
  it("cuts 201 and 5,000 characters to 200, the last one …", () => {
    for (const n of [201, 5_000]) {
      const cut = promptExcerpt(of(n));
      expect(Array.from(cut)).toHaveLength(200);
      expect(cut).toBe(`${of(199)}…`);
    }
  });
  it("trims surrounding spaces before measuring", () => {
    expect(promptExcerpt(`   ${of(200)}   `)).toBe(of(200));
    expect(promptExcerpt("  Approve 'git fetch'?\n")).toBe("Approve 'git fetch'?");
  });
  it("gives nothing for an empty or blank prompt", () => {
    expect(promptExcerpt("")).toBe("");
    expect(promptExcerpt("   ")).toBe("");
    expect(promptExcerpt(undefined)).toBe("");
  });
  it("never splits a character made of two code units", () => {
    const cut = promptExcerpt("😀".repeat(300));
    expect(cut).toBe(`${"😀".repeat(199)}…`);
  });
});

describe("notices", () => {
  const child = { session_id: "conv_child", title: "codex:auth-refactor" };
  it("a block notice names the child, says it is blocked awaiting human approval and carries the prompt", () => {
    const text = blockNotice(child, "  Approve running 'git fetch'?  ");
    expect(text.startsWith("[System: ")).toBe(true);
    expect(text.endsWith("]")).toBe(true);
    expect(text).toContain("sub-agent codex/auth-refactor is blocked awaiting human approval: Approve running 'git fetch'?.");
  });
  it("a block notice without a prompt still names the child", () => {
    expect(blockNotice({ session_id: "conv_x" }, "   ")).toContain("sub-agent conv_x is blocked awaiting human approval.");
  });
  it("a resolution notice says the approval was resolved", () => {
    const text = resolutionNotice(child);
    expect(text).toMatch(/^\[System: .*\]$/);
    expect(text).toContain("codex/auth-refactor's pending approval was resolved");
  });
});
