/** `npm run inbox:export -- <dir>`: the approval inbox as a folder for any static host (S3, a CDN, nginx). */
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { inboxFiles } from "../local/inbox-files.js";

const target = process.argv[2];
if (!target) {
  console.error("usage: npm run inbox:export -- <dir>");
  process.exit(2);
}
for (const [path, source] of inboxFiles()) {
  const destination = join(resolve(target), path);
  mkdirSync(dirname(destination), { recursive: true });
  copyFileSync(source, destination);
}
console.log(`inbox written to ${resolve(target)}: serve it over http(s) and open index.html?api=<HttpUrl>&ws=<WebSocketUrl>`);
