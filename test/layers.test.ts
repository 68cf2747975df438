/**
 * The import rules of docs/architecture.md, checked on the real tree: each layer imports only the
 * layers and packages its rule allows, so a broken rule fails here instead of in a reader's head.
 * Imports are read by TypeScript's own pre-processor (static, dynamic and type-only alike).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"));

type LayerName = "catalog" | "items" | "stores" | "domain" | "lambda" | "shared" | "handlers" | "local" | "infra" | "sdk" | "cli" | "web";

interface Layer {
  /** Repository paths in this layer; the first layer that holds a path owns it. */
  holds: RegExp;
  /** The layers its files may import (its own included only when listed). */
  may: LayerName[];
  /** The packages it may import; `true` for any. */
  packages: true | ((name: string) => boolean);
}

const among =
  (...names: string[]) =>
  (name: string) =>
    names.includes(name) || name.startsWith("node:") || builtinModules.includes(name);
const sdkPackage = readJson("sdk/package.json");
const sdkPackages = Object.keys({ ...sdkPackage.dependencies, ...sdkPackage.peerDependencies });
/** The inbox has no build step: a bare import works only if the pages' import map names it. */
const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(readFileSync(join(root, "web/index.html"), "utf8"))?.[1] ?? "{}");
const webPackages = Object.keys(importMap.imports ?? {});

// Order matters: the first match owns a file (items before domain, stores before domain, handlers last in functions/).
const layers: Record<LayerName, Layer> = {
  catalog: { holds: /^functions\/catalog\.ts$/, may: [], packages: among() },
  items: { holds: /^functions\/domain\/items\.ts$/, may: ["shared"], packages: among() },
  stores: { holds: /^functions\/domain\/stores\//, may: ["stores", "items", "shared"], packages: among("@aws-sdk/lib-dynamodb", "@aws-sdk/client-dynamodb") },
  domain: {
    holds: /^functions\/domain\//,
    may: ["domain", "items", "stores", "shared", "catalog"],
    // The AWS clients the domain's adapters speak to (`push.ts`, `timers.ts`); never Lambda's types or tools.
    packages: among("@aws-sdk/client-dynamodb", "@aws-sdk/lib-dynamodb", "@aws-sdk/client-scheduler", "@aws-sdk/client-apigatewaymanagementapi"),
  },
  lambda: {
    holds: /^functions\/lambda\//,
    // The composition root and the handler shapes: the domain over its stores and real clients, Lambda's event types.
    may: ["lambda", "domain", "items", "stores", "shared", "catalog"],
    packages: among("aws-lambda", "@aws-sdk/client-dynamodb", "@aws-sdk/lib-dynamodb", "@aws-sdk/client-scheduler", "@aws-sdk/client-apigatewaymanagementapi"),
  },
  shared: {
    holds: /^functions\/shared\//,
    may: ["shared", "catalog"],
    packages: among("zod", "jose", "aws-lambda", "@aws-lambda-powertools/logger", "@aws-sdk/client-secrets-manager"),
  },
  handlers: {
    holds: /^functions\/[^/]+\.ts$/,
    may: ["lambda", "domain", "items", "shared"],
    // Lambda's event types and batch tool, and the stream image's own format.
    packages: among("aws-lambda", "@aws-lambda-powertools/batch", "@aws-sdk/util-dynamodb", "@aws-sdk/client-dynamodb"),
  },
  // The runtime builds the services the Lambda runtime would build from its environment (functions/lambda/services.ts).
  local: { holds: /^local\//, may: ["local", "catalog", "shared", "lambda"], packages: true },
  infra: { holds: /^infra\//, may: ["infra", "catalog", "shared"], packages: true },
  sdk: { holds: /^sdk\//, may: ["sdk"], packages: among(...sdkPackages) },
  cli: { holds: /^(cli|bin)\//, may: ["cli", "sdk", "shared", "local"], packages: true },
  web: { holds: /^web\//, may: ["web"], packages: among(...webPackages) },
};

/** Type declarations emit nothing: the inbox's may take the protocol's types from the one set of schemas. */
const typeOnlyExceptions: Record<string, string[]> = { "web/types.d.ts": ["functions/shared/schemas"] };

function layerOf(path: string): LayerName | undefined {
  return (Object.keys(layers) as LayerName[]).find((name) => layers[name].holds.test(path));
}

const packageName = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
const withoutExtension = (path: string) => path.replace(/(\.d)?\.(ts|js|mts|mjs)$/, "");

/** TypeScript imports name the emitted `.js`: the file in the tree is the `.ts` beside it. */
const sourceOf = (target: string) => (target.endsWith(".js") && existsSync(join(root, target.replace(/\.js$/, ".ts"))) ? target.replace(/\.js$/, ".ts") : target);

/** The zod entry points a file imports. */
const zodImports = (source: string) =>
  ts
    .preProcessFile(source, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => packageName(name) === "zod");

/** The one file of the functions that imports zod, and what it imports: the mini build and its English messages. */
const ZOD_ENTRY = "functions/shared/zod.ts";
const ZOD_BUILD = ["zod/mini", "zod/v4/locales/en.js"];

/** A function's file that imports zod itself: it would put zod's full build in its bundle. */
const fullZod = (path: string, source: string) => (path.startsWith("functions/") && path !== ZOD_ENTRY ? zodImports(source) : []);

/** The rule breaks of one file, as `file -> import: why`. */
function violations(path: string, source: string): string[] {
  const from = layerOf(path);
  if (!from) return [];
  const layer = layers[from];
  const found: string[] = [];
  for (const { fileName: specifier } of ts.preProcessFile(source, true, true).importedFiles) {
    if (specifier.startsWith(".")) {
      const target = sourceOf(relative(root, resolve(root, dirname(path), specifier)));
      const to = layerOf(target);
      if (typeOnlyExceptions[path]?.includes(withoutExtension(target))) continue;
      if (!to || !layer.may.includes(to)) found.push(`${path} -> ${target}: ${from} may import ${layer.may.join(", ") || "nothing of the tree"}`);
    } else if (layer.packages !== true && !layer.packages(packageName(specifier))) {
      found.push(`${path} -> ${specifier}: not a package ${from} may import`);
    }
  }
  return found;
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return ["node_modules", "dist", "vendor"].includes(entry.name) ? [] : sources(path);
    return /\.(ts|js|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const tree = ["functions", "local", "infra", "sdk", "cli", "bin", "web"].flatMap(sources);

describe("layers", () => {
  it("every layer holds files, so a moved folder cannot make a rule vacuous", () => {
    const held = new Set(tree.map(layerOf));
    expect((Object.keys(layers) as LayerName[]).filter((name) => !held.has(name))).toEqual([]);
  });

  it("each file imports only what its layer's rule allows", () => {
    const broken = tree.flatMap((path) => violations(path, readFileSync(join(root, path), "utf8")));
    expect(broken).toEqual([]);
  });

  it("the functions' schemas come from zod's mini build alone, through one file, so no bundle holds the full build", () => {
    expect(tree.flatMap((path) => fullZod(path, readFileSync(join(root, path), "utf8")))).toEqual([]);
    expect([...new Set(zodImports(readFileSync(join(root, ZOD_ENTRY), "utf8")))].sort()).toEqual(ZOD_BUILD);
    expect(fullZod("functions/shared/x.ts", 'import * as z from "zod";')).toEqual(["zod"]);
    expect(fullZod("cli/x.ts", 'import * as z from "zod";')).toEqual([]);
  });

  it("sees a break of each kind", () => {
    expect(violations("functions/shared/x.ts", 'import type { Resolved } from "../domain/items.js";')).toHaveLength(1);
    expect(violations("functions/domain/x.ts", 'import type { Context } from "aws-lambda";')).toHaveLength(1);
    expect(violations("functions/domain/x.ts", 'const m = await import("../ws-hello.js");')).toHaveLength(1);
    expect(violations("functions/http-x.ts", 'import { keys } from "./domain/stores/keys.js";')).toHaveLength(1);
    expect(violations("functions/domain/stores/x.ts", 'import { createDelivery } from "../delivery.js";')).toHaveLength(1);
    expect(violations("sdk/x.ts", 'import { Id } from "../functions/shared/schemas.js";')).toHaveLength(1);
    expect(violations("web/x.js", 'import { Id } from "../functions/shared/schemas.js";')).toHaveLength(1);
    expect(violations("web/x.js", 'import "left-pad";')).toHaveLength(1);
  });
});
