/**
 * How every function is bundled and started, in one place for the stack (infra/tollgate-function.ts)
 * and the cold start bench (bench/phases/cold-start.ts), so that the bench times what deploys. No CDK
 * here: the bench imports it.
 */

/** esbuild's output is ESM; a few CommonJS dependencies still call `require` for builtins. */
export const esmRequireBanner = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/** What esbuild is told beside entry, target and output, in esbuild's own names. */
export const bundleSettings = {
  format: "esm",
  minify: true,
  // Prefer the ES module builds of dependencies (the AWS SDK ships both): they tree-shake.
  mainFields: ["module", "main"],
  banner: esmRequireBanner,
  // A source map beside each bundle, without the sources: Node reads it only when told to (below).
  sourcemap: true,
  sourcesContent: false,
} as const;

/**
 * Node's options for a function. `--enable-source-maps` makes stack traces name the TypeScript
 * sources, but Node then reads and parses each bundle's source map as it loads it: 10 to 27 ms more
 * import for the verdict here (docs/cold-starts.md). So it is on only where a deployment
 * asks for it (`tollgate:sourceMaps`).
 */
export function nodeOptionsFor(sourceMaps: boolean): string[] {
  return sourceMaps ? ["--enable-source-maps"] : [];
}
