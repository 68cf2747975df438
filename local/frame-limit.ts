/**
 * API Gateway's WebSocket limit on one frame (32 KB; a message may span frames up to 128 KB).
 * The `ws` library only limits whole messages, so this reads the header of every frame a client
 * sends, beside `ws` on the same socket, and reports the first one that is too big.
 */
import type { Duplex } from "node:stream";

export const FRAME_LIMIT_BYTES = 32 * 1024;
export const MESSAGE_LIMIT_BYTES = 128 * 1024;

/** Calls `tooBig` once when a frame's declared payload is over the limit. Attach before `ws` reads the socket. */
export function watchFrameSizes(socket: Duplex, head: Buffer, tooBig: () => void): void {
  let pending: Buffer = Buffer.alloc(0);
  /** Payload bytes of the current frame still to skip. */
  let skip = 0;
  let done = false;
  const read = (chunk: Buffer) => {
    if (done) return;
    pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      if (skip > 0) {
        const skipped = Math.min(skip, pending.length);
        skip -= skipped;
        pending = pending.subarray(skipped);
        if (skip > 0) return;
      }
      if (pending.length < 2) return;
      const short = pending[1] & 0x7f;
      const masked = (pending[1] & 0x80) !== 0;
      const lengthBytes = short === 126 ? 2 : short === 127 ? 8 : 0;
      const headerBytes = 2 + lengthBytes + (masked ? 4 : 0);
      if (pending.length < headerBytes) return;
      const length = short === 126 ? pending.readUInt16BE(2) : short === 127 ? Number(pending.readBigUInt64BE(2)) : short;
      if (length > FRAME_LIMIT_BYTES) {
        done = true;
        socket.removeListener("data", read);
        return tooBig();
      }
      pending = pending.subarray(headerBytes);
      skip = length;
    }
  };
  socket.on("data", read);
  if (head.length > 0) read(head);
}
