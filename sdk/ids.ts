/** Tollgate ids (1 to 128 of `A-Z a-z 0-9 _ . : -`) made from the ids of agent frameworks. */
const ID_CHARS = /[^A-Za-z0-9_.:-]/g;

/** The first 128 bits of SHA-256, in hex. */
async function digest(text: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...hash.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `prefix` + `text` when that is a valid id, else `prefix` + a hash of `text`: the same text always gives the same id. */
export async function idOf(prefix: string, text: string): Promise<string> {
  return text.replace(ID_CHARS, "_") === text && prefix.length + text.length <= 128 ? `${prefix}${text}` : `${prefix}${await digest(text)}`;
}
