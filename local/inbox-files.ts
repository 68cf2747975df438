/**
 * The inbox's files: web/ as it is, plus the browser builds of the few libraries it imports by
 * name (its import map points `oauth4webapi` at `vendor/oauth4webapi.js`). The local gateway serves
 * them; `npm run inbox:export -- <dir>` copies them into a folder for any static host.
 */
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join, normalize } from "node:path";
import { root } from "./lambda.js";

export const webDir = join(root, "web");

/** Path under the page's folder -> the npm package whose main browser module it is. */
const vendored: Record<string, string> = { "vendor/oauth4webapi.js": "oauth4webapi" };

const resolve = createRequire(join(root, "package.json")).resolve;

/** The file behind a request path, or undefined when the path leaves the inbox. */
export function inboxFile(pathname: string): string | undefined {
  const relative = pathname === "/" ? "index.html" : pathname.replace(/^\/+/, "");
  if (vendored[relative]) return resolve(vendored[relative]);
  const file = normalize(join(webDir, relative));
  return file.startsWith(`${webDir}/`) ? file : undefined;
}

/** Every file a static host needs, as [path under the page's folder, file on disk]. */
export function inboxFiles(): [string, string][] {
  const own = readdirSync(webDir).filter((name) => /\.(html|js|css|svg)$/.test(name));
  return [...own.map((name): [string, string] => [name, join(webDir, name)]), ...Object.keys(vendored).map((path): [string, string] => [path, inboxFile(`/${path}`)!])];
}
