/**
 * Write units by AWS's documented rules, from the real items before and after a write: an item's size
 * is its attribute names plus values (numbers about one byte per two digits plus one, maps and lists
 * three bytes plus one per element), a write costs 1 WRU per KB started of the larger of the two images,
 * each global secondary index the item enters or leaves is written too, one it stays in when an
 * attribute it projects changed (ALL: any attribute, the whole item's size; KEYS_ONLY: only its keys,
 * which never change in place), a changed index key is a delete and a put, and a transaction doubles
 * every write.
 */
import { mainTable, type IndexDefinition } from "../../functions/shared/tables.js";

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
const indexKey = (item: Item | undefined, index: IndexDefinition) => {
  const pk = item?.[index.partitionKey]?.S;
  const sk = item?.[index.sortKey]?.S;
  return pk !== undefined && sk !== undefined ? `${pk}\u0000${sk}` : undefined;
};

/** An item's JSON with every map's keys in order: DynamoDB returns attributes in no set order. */
const canonical = (value: unknown): string =>
  value && typeof value === "object" && !Array.isArray(value) && !(value instanceof Uint8Array)
    ? `{${Object.keys(value)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")}}`
    : Array.isArray(value)
      ? `[${value.map(canonical).join(",")}]`
      : JSON.stringify(value);

/** What the index holds of an item: all of it, or the table's and the index's keys. */
const projected = (item: Item, index: IndexDefinition): Item =>
  index.projection === "ALL" ? item : Object.fromEntries([mainTable.partitionKey, mainTable.sortKey, index.partitionKey, index.sortKey].map((k) => [k, item[k]]));

const entrySize = (item: Item, index: IndexDefinition) => kb(itemSize(projected(item, index)));

/** Writes to one index for one item's change: 0 when the item is in it neither before nor after, or its entry did not change. */
function indexWrites(before: Item | undefined, after: Item | undefined, index: IndexDefinition): number {
  const was = indexKey(before, index);
  const is = indexKey(after, index);
  if (was === undefined && is === undefined) return 0;
  if (was === undefined) return entrySize(after!, index);
  if (is === undefined) return entrySize(before!, index);
  if (was !== is) return entrySize(before!, index) + entrySize(after!, index);
  return canonical(projected(before!, index)) === canonical(projected(after!, index)) ? 0 : entrySize(after!, index);
}

/** Units of one item's write on the table and on each index, from its images before and after. */
export function writeUnits(before: Item | undefined, after: Item | undefined, transactional: boolean) {
  const factor = transactional ? 2 : 1;
  const larger = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const index_units: Record<string, number> = {};
  for (const index of Object.values(mainTable.indexes)) {
    const writes = indexWrites(before, after, index);
    if (writes > 0) index_units[index.name] = factor * writes;
  }
  return { table_units: factor * kb(larger), index_units };
}
