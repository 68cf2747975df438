/**
 * The copy-paste example under a heading of a page in docs/, as a module the test imports: its
 * `@tollgate/runner` imports point at the package's source, everything else resolves as written.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const repo = new URL("../../", import.meta.url);

export async function docExample<T>(page: string, heading: string): Promise<T> {
  const text = await readFile(new URL(`docs/${page}`, repo), "utf8");
  const section = text.slice(text.indexOf(`\n## ${heading}\n`));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error(`docs/${page} has no ts example under "## ${heading}"`);
  const sdk = fileURLToPath(new URL("sdk/", repo));
  const local = code.replace(/"@tollgate\/runner(?:\/([a-z-]+))?"/g, (_, sub: string | undefined) => JSON.stringify(`${sdk}${sub ?? "index"}.ts`));
  const dir = new URL("test/.examples/", repo);
  await mkdir(dir, { recursive: true });
  const file = new URL(`${page.replace(/\W/g, "_")}_${heading.replace(/\W/g, "_")}.ts`, dir);
  await writeFile(file, local);
  return (await import(fileURLToPath(file))) as T;
}
