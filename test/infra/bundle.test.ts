/**
 * A real synthesis of the Tollgate app WITH bundling: the local esbuild bundles every catalog
 * entry (no Docker, no network), cdk-nag runs over the result, and each bundle is checked for
 * what the deployment relies on: ESM with the createRequire banner, a source map, the AWS SDK
 * bundled (no bare `@aws-sdk/*` import left for the runtime to resolve), no dev dependency.
 */
import * as fs from "node:fs";
import { builtinModules } from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { functions as catalog } from "../../functions/catalog.js";
import { type BundleSize, bundleSizes, markdownTable } from "../../infra/bundle-sizes.js";
import { repoRoot } from "../../infra/stack.js";
import { createTollgateApp } from "../../infra/tollgate-app.js";
import { esmRequireBanner } from "../../infra/bundling.js";

const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Node builtins, importable without `node:` (`module` is the banner's). */
const builtins = new Set(builtinModules);

const entriesMissing = Object.values(catalog)
  .map((f) => f.entry)
  .filter((entry) => !fs.existsSync(path.join(repoRoot, entry)));

describe("catalog entry files", () => {
  it("every catalog entry exists", () => {
    expect(entriesMissing).toEqual([]);
  });
});

describe.skipIf(entriesMissing.length > 0)("synth with bundling (local esbuild, no Docker)", { timeout: 240_000 }, () => {
  let outdir: string;
  let sizes: BundleSize[];
  let synthError: unknown;
  let seconds = 0;

  beforeAll(() => {
    outdir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-bundle-"));
    const started = Date.now();
    const { app } = createTollgateApp({ app: { outdir } });
    try {
      app.synth();
    } catch (e) {
      synthError = e;
    }
    seconds = (Date.now() - started) / 1000;
    sizes = synthError ? [] : bundleSizes(outdir);
    if (process.env.TOLLGATE_PRINT_BUNDLE_SIZES) console.log(`synth ${seconds.toFixed(1)} s\n${markdownTable(sizes)}`);
  }, 240_000);

  // The cloud assembly holds ~40 MB of bundles and source maps.
  afterAll(() => {
    if (outdir && !process.env.TOLLGATE_KEEP_CDK_OUT) fs.rmSync(outdir, { recursive: true, force: true });
  });

  it("synthesises, bundling every function, with no cdk-nag finding", () => {
    expect(synthError).toBeUndefined();
    expect(sizes.map((s) => s.name).sort()).toEqual(Object.keys(catalog).sort());
    expect(seconds).toBeLessThan(180);
  });

  it("each bundle is minified ESM with the createRequire banner and exports `handler`", () => {
    for (const s of sizes) {
      const code = fs.readFileSync(path.join(s.assetDir, "index.mjs"), "utf8");
      expect(code.startsWith(esmRequireBanner), s.name).toBe(true);
      expect(code, s.name).toMatch(/export\s*\{[^}]*\bas handler\b[^}]*\}|export\s*\{[^}]*\bhandler\b[^}]*\}/);
      expect(code, s.name).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(fs.readdirSync(s.assetDir).sort(), s.name).toEqual(["index.mjs", "index.mjs.map"]);
    }
  });

  it("the AWS SDK and every other dependency are bundled: no bare package import is left", () => {
    // Optional peers that @aws-sdk/signature-v4-multi-region loads inside try/catch for SigV4a
    // (multi-region access points); Tollgate never signs SigV4a, so their absence is expected.
    const optionalPeers = new Set(["@aws-sdk/signature-v4-crt", "@aws-sdk/signature-v4a"]);
    const packageSpecifier = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.@-]+)*$/;
    for (const s of sizes) {
      const code = fs.readFileSync(path.join(s.assetDir, "index.mjs"), "utf8");
      const specifiers = [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]).filter((spec) => packageSpecifier.test(spec));
      const bare = specifiers.filter((spec) => !builtins.has(spec.replace(/^node:/, "")) && !optionalPeers.has(spec));
      expect(bare, s.name).toEqual([]);
      // The banner's own import is there: the check above does see imports.
      expect(specifiers, s.name).toContain("module");
    }
  });

  it("no dev dependency ends up in a bundle; only declared dependencies (and their own deps) do", () => {
    const dev = new Set(Object.keys(pkg.devDependencies));
    for (const s of sizes) {
      expect(
        s.packages.filter((p) => dev.has(p)),
        s.name,
      ).toEqual([]);
    }
    // The SDK clients in the bundles are the pinned ones of package.json.
    const sdkInBundles = new Set(sizes.flatMap((s) => s.packages).filter((p) => p.startsWith("@aws-sdk/client-")));
    for (const p of sdkInBundles) expect(Object.keys(pkg.dependencies), p).toContain(p);
  });

  it("bundles stay small (each under 1.5 MiB before compression)", () => {
    for (const s of sizes) expect(s.bytes, s.name).toBeLessThan(1.5 * 1024 * 1024);
  });
});
