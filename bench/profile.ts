/**
 * Summarise a V8 CPU profile of the runtime (`BENCH_PROFILE_DIR=... npm run bench` writes one):
 * self time by package or project folder, and the heaviest functions.
 *   npx tsx bench/profile.ts <file.cpuprofile> [top]
 */
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function bucketOf(url: string, fn: string): string {
  if (!url) return fn === "(garbage collector)" ? "(gc)" : fn === "(idle)" ? "(idle)" : fn === "(program)" ? "(program)" : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith("node:")) return url.replace(/^node:internal\/.*/, "node:internal");
  const project = /\/work\/[^/]+\/((?:functions\/(?:domain|shared)|functions|local|sdk)\/?[^/]*)/.exec(url);
  if (project) return project[1];
  return url;
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => {
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
const buckets = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const bucket = bucketOf(url, functionName);
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + us);
  const name = `${functionName || "(anonymous)"} ${url ? `${url.replace(/^.*node_modules\//, "").replace(/^file:\/\/\/work\/[^/]+\//, "")}:${lineNumber + 1}` : ""}`;
  functions.set(name, (functions.get(name) ?? 0) + us);
}
const busy = total - (buckets.get("(idle)") ?? 0);
const pct = (us: number, of: number) => `${((100 * us) / of).toFixed(1).padStart(5)}%`;
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (percentages of busy time)\n`);
console.log("self time by package / folder");
for (const [name, us] of [...buckets]
  .filter(([n]) => n !== "(idle)")
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${pct(us, busy)}  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${name}`);
console.log("\nheaviest functions (self time)");
for (const [name, us] of [...functions]
  .filter(([n]) => !n.startsWith("(idle)"))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`  ${pct(us, busy)}  ${(us / 1e3).toFixed(0).padStart(7)} ms  ${name}`);

// `npx tsx bench/profile.ts file top NAME`: who calls NAME (self time by caller chain, 6 frames up).
const focus = process.argv[4];
if (focus) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const chains = new Map<string, number>();
  for (const [id, us] of self) {
    if (byId.get(id)!.callFrame.functionName !== focus) continue;
    const names: string[] = [];
    for (let p = parent.get(id), i = 0; p !== undefined && i < 8; p = parent.get(p), i++) {
      const f = byId.get(p)!.callFrame;
      names.push(`${f.functionName || "(anon)"}@${f.url.replace(/^.*node_modules\//, "").replace(/^.*\/work\/[^/]+\//, "")}:${f.lineNumber + 1}`);
    }
    const key = names.join(" < ");
    chains.set(key, (chains.get(key) ?? 0) + us);
  }
  console.log(`\ncallers of ${focus}`);
  for (const [k, us] of [...chains].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${pct(us, busy)}  ${k}`);
}
