/**
 * Prints a markdown table of each function's bundle from a synthesised cloud assembly:
 *
 *   npx cdk synth --quiet && npx tsx infra/bundle-sizes.ts [cdk.out]
 *
 * It reads the stack template, follows each Lambda function's `aws:asset:path` metadata to its
 * asset folder, and measures `index.mjs` (raw and gzip, roughly what the deployment zip holds)
 * and its source map. docs/bundle-sizes.md is made with it.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { functions as catalog } from "../functions/catalog.js";

export interface BundleSize {
  /** Catalog name, e.g. `wsHello`. */
  name: string;
  entry: string;
  assetDir: string;
  bytes: number;
  gzipBytes: number;
  mapBytes: number;
  /** Distinct npm packages the source map lists (what ended up in the bundle). */
  packages: string[];
}

interface Template {
  Resources: Record<string, { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }>;
}

/** `.../node_modules/@aws-sdk/client-dynamodb/dist-es/x.js` -> `@aws-sdk/client-dynamodb`. */
export function packageOf(source: string): string | undefined {
  const i = source.lastIndexOf("node_modules/");
  if (i < 0) return undefined;
  const parts = source.slice(i + "node_modules/".length).split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

export function bundleSizes(outdir: string, stackName = "Tollgate"): BundleSize[] {
  const template = JSON.parse(fs.readFileSync(path.join(outdir, `${stackName}.template.json`), "utf8")) as Template;
  const sizes: BundleSize[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== "AWS::Lambda::Function") continue;
    // `WsHelloFunction1A2B3C4D` (construct `Tollgate/WsHello/Function`) -> `wsHello`
    const id = logicalId.replace(/Function[0-9A-F]{8}$/, "");
    const name = id.charAt(0).toLowerCase() + id.slice(1);
    const spec = (catalog as Record<string, { entry: string }>)[name];
    if (!spec) continue;
    // The asset folder: from the asset metadata the CLI asks for, else from the S3 key's hash.
    const s3Key = (resource.Properties?.Code as { S3Key?: unknown } | undefined)?.S3Key;
    const asset =
      typeof resource.Metadata?.["aws:asset:path"] === "string" ? (resource.Metadata["aws:asset:path"] as string) : typeof s3Key === "string" ? `asset.${s3Key.replace(/\.zip$/, "")}` : undefined;
    if (!asset || !fs.existsSync(path.join(outdir, asset, "index.mjs"))) continue;
    const assetDir = path.join(outdir, asset);
    const code = fs.readFileSync(path.join(assetDir, "index.mjs"));
    const mapFile = path.join(assetDir, "index.mjs.map");
    const map = fs.existsSync(mapFile) ? fs.readFileSync(mapFile) : undefined;
    const sources: string[] = map ? (JSON.parse(map.toString("utf8")).sources ?? []) : [];
    sizes.push({
      name,
      entry: spec.entry,
      assetDir,
      bytes: code.length,
      gzipBytes: gzipSync(code, { level: 9 }).length,
      mapBytes: map?.length ?? 0,
      packages: [...new Set(sources.map(packageOf).filter((p): p is string => !!p))].sort(),
    });
  }
  return sizes.sort((a, b) => a.name.localeCompare(b.name));
}

const kib = (n: number) => `${(n / 1024).toFixed(1)}`;

/**
 * The table. `direct`: the package.json dependencies; only those are named per function (the
 * SDK's own @smithy/* and credential-provider packages would drown the table), plus a count of
 * every package in the bundle.
 */
export function markdownTable(sizes: BundleSize[], direct?: ReadonlySet<string>): string {
  const lines = ["| function | index.mjs (KiB) | gzip (KiB) | source map (KiB) | dependencies bundled | packages in all |", "| --- | ---: | ---: | ---: | --- | ---: |"];
  for (const s of sizes) {
    const named = direct ? s.packages.filter((p) => direct.has(p)) : s.packages;
    lines.push(`| ${s.name} | ${kib(s.bytes)} | ${kib(s.gzipBytes)} | ${kib(s.mapBytes)} | ${named.join(", ") || "none"} | ${s.packages.length} |`);
  }
  const total = sizes.reduce((a, s) => a + s.bytes, 0);
  const gz = sizes.reduce((a, s) => a + s.gzipBytes, 0);
  lines.push(`| **total (${sizes.length} functions)** | ${kib(total)} | ${kib(gz)} | | | |`);
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = path.resolve(process.argv[2] ?? "cdk.out");
  const sizes = bundleSizes(outdir);
  if (sizes.length === 0) {
    console.error(`no function bundles found in ${outdir}: run \`npx cdk synth --quiet\` first`);
    process.exit(1);
  }
  const pkgFile = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "package.json");
  const deps = new Set(Object.keys((JSON.parse(fs.readFileSync(pkgFile, "utf8")) as { dependencies?: object }).dependencies ?? {}));
  console.log(markdownTable(sizes, deps));
}
