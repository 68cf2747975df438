/**
 * The repository stands alone and speaks of the product: no tracked file points at a path outside
 * it, or names a document that lives elsewhere, and none speaks of the tracker's issue numbers.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);

/** Text files only: a NUL byte marks a binary one. */
const texts = tracked.flatMap((path) => {
  if (!existsSync(resolve(root, path))) return []; // deleted in the working tree, not yet in the index
  const text = readFileSync(resolve(root, path), "utf8");
  return text.includes("\0") ? [] : [{ path, lines: text.split("\n") }];
});

/** Every place in the tracked text where `pattern` matches, with what `keep` says of the match. */
function findings(pattern: RegExp, keep: (match: string, path: string) => boolean = () => true): string[] {
  return texts.flatMap(({ path, lines }) => lines.flatMap((line, i) => [...line.matchAll(pattern)].filter((m) => keep(m[0], path)).map((m) => `${path}:${i + 1}: ${m[0]}`)));
}

const outside = (target: string) => {
  const rel = relative(root, target);
  return rel.startsWith("..") || isAbsolute(rel);
};

it("has text to check", () => {
  expect(texts.length).toBeGreaterThan(50);
  expect(texts.map((t) => t.path)).toContain("docs/protocol.md");
});

it("points at no path outside the repository", () => {
  const climbing = /(?:\.\.\/)+[^\s)"'`<>\],;]*/g;
  expect(findings(climbing, (path, file) => outside(resolve(root, dirname(file), path)))).toEqual([]);
  const machine = new RegExp(["/work", "/wt/", "|/work", "/shared|/tmp/bash", "_jobs"].join(""), "g");
  expect(findings(machine)).toEqual([]);
});

it("names no document that lives outside the repository", () => {
  const elsewhere = new RegExp(["\\bPROTOCOL", "\\b|DESIGN", "-NOTES|TOOLCHAIN", "\\.md"].join(""), "g");
  expect(findings(elsewhere)).toEqual([]);
});

it("speaks of the product, not of the tracker: no issue numbers", () => {
  const tracker = new RegExp(["\\bissues? ", "#?\\d+|\\bthe se", "eds\\b"].join(""), "gi");
  expect(findings(tracker)).toEqual([]);
});
