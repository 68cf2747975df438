/** Notification deliveries as the table holds them, for tests that move the clock past an attempt's lease. */
import { expect } from "vitest";
import { eventually, type Harness } from "./tollgate.js";

export interface RecordedDelivery {
  eventId: string;
  /** `delivered` or `failed` once its last attempt ended; absent while one may still run. */
  done?: string;
}

/** The deliveries recorded for one target: one item per event, whatever fired it. */
export async function deliveriesTo(h: Harness, targetId: string): Promise<RecordedDelivery[]> {
  const items = await h.scan();
  return items
    .filter((i: any) => i.kind?.S === "notification_delivery" && i.target_id?.S === targetId)
    .map((i: any) => ({ eventId: i.event_id.S as string, ...(i.done ? { done: i.done.S as string } : {}) }));
}

/**
 * Wait until every delivery to the target has ended. A receiver holds a request before its attempt
 * records the outcome and ends; a clock moved past the attempt's lease in between would let a second
 * firing's look after the lease take it over and send it again (at least once, as it should for an
 * attempt that stalled), which a test counting requests would read as a duplicate.
 */
export async function deliveriesEnded(h: Harness, targetId: string): Promise<void> {
  await eventually(async () => expect((await deliveriesTo(h, targetId)).filter((d) => !d.done)).toEqual([]), 20_000);
}
