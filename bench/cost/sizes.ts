/**
 * Write units by AWS's documented rules, from the real items before and after a write: an item's size
 * is its attribute names plus values (numbers about one byte per two digits plus one, maps and lists
 * three bytes plus one per element), a write costs 1 WRU per KB started of the larger of the two images,
 * each global secondary index the item enters, stays in or leaves is written too (ALL projection: the
 * whole item; a changed index key is a delete and a put), and a transaction doubles every write.
 */
import { mainTable } from "../../functions/shared/tables.js";

export type AttributeValue = { S?: string; N?: string; B?: string | Uint8Array; BOOL?: boolean; NULL?: boolean; M?: Item; L?: AttributeValue[]; SS?: string[]; NS?: string[]; BS?: string[] };
export type Item = Record<string, AttributeValue>;

const bytes = (s: string) => Buffer.byteLength(s, "utf8");
const numberSize = (n: string) => Math.ceil(n.replace(/^-|\.|e.*$/gi, "").replace(/^0+/, "").length / 2) + 1;

function valueSize(v: AttributeValue): number {
  if (v.S !== undefined) return bytes(v.S);
  if (v.N !== undefined) return numberSize(v.N);
  if (v.B !== undefined) return typeof v.B === "string" ? Buffer.from(v.B, "base64").length : v.B.length;
  if (v.BOOL !== undefined || v.NULL !== undefined) return 1;
  if (v.M) return 3 + Object.entries(v.M).reduce((a, [k, x]) => a + bytes(k) + valueSize(x) + 1, 0);
  if (v.L) return 3 + v.L.reduce((a, x) => a + valueSize(x) + 1, 0);
  if (v.SS) return v.SS.reduce((a, s) => a + bytes(s), 0);
  if (v.NS) return v.NS.reduce((a, n) => a + numberSize(n), 0);
  if (v.BS) return v.BS.reduce((a, b) => a + Buffer.from(b, "base64").length, 0);
  return 0;
}

export const itemSize = (item: Item) => Object.entries(item).reduce((a, [k, v]) => a + bytes(k) + valueSize(v), 0);

const kb = (size: number) => Math.max(1, Math.ceil(size / 1024));
const indexKey = (item: Item | undefined, index: { partitionKey: string; sortKey: string }) => {
  const pk = item?.[index.partitionKey]?.S;
  const sk = item?.[index.sortKey]?.S;
  return pk !== undefined && sk !== undefined ? `${pk}\u0000${sk}` : undefined;
};

/** Units of one item's write on the table and on each index, from its images before and after. */
export function writeUnits(before: Item | undefined, after: Item | undefined, transactional: boolean) {
  const factor = transactional ? 2 : 1;
  const larger = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const index_units: Record<string, number> = {};
  for (const index of Object.values(mainTable.indexes)) {
    const was = indexKey(before, index);
    const is = indexKey(after, index);
    if (was === undefined && is === undefined) continue;
    const writes = was !== undefined && is !== undefined && was !== is ? kb(itemSize(before!)) + kb(itemSize(after!)) : kb(is !== undefined ? itemSize(after!) : itemSize(before!));
    index_units[index.name] = factor * writes;
  }
  return { table_units: factor * kb(larger), index_units };
}
