/** Output: results on stdout, progress on stderr; colour only on a terminal, never with NO_COLOR. */
const useColour = () => Boolean(process.stdout.isTTY && process.stderr.isTTY) && !process.env.NO_COLOR;

const sgr = (code: number) => (text: string) => (useColour() ? `\x1b[${code}m${text}\x1b[0m` : text);
export const paint = { bold: sgr(1), dim: sgr(2), red: sgr(31), green: sgr(32), yellow: sgr(33), cyan: sgr(36) };

export const print = (line: string) => void process.stdout.write(`${line}\n`);
export const printJson = (value: unknown) => print(JSON.stringify(value));
/** Progress for a human: stderr, so stdout stays the result a script reads. */
export const note = (line: string) => void process.stderr.write(`${line}\n`);

/** Rows under a header, each column as wide as its widest cell; the last column is not padded (it may be painted). */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join("  ");
  return [paint.bold(line(header)), ...rows.map(line)];
}
