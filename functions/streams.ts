/**
 * DynamoDB Streams: badge pushes, inbox events, schedules, notices and the verdict safety net.
 * Records of one item run in stream order, one after another; different items run side by side.
 * A failed record fails the later records of its item too, so a retry never reorders an item's
 * changes (Lambda retries from the lowest failed sequence number; every reaction is idempotent).
 * The batch shares one audience, so each tenant's subscribers are read once per batch.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { servicesOf } from "./lambda/services.js";

const image = (raw: Record<string, unknown> | undefined) => (raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined);
const itemKey = (record: DynamoDBRecord) => JSON.stringify(record.dynamodb?.Keys ?? {});

export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  const previous = new Map<string, Promise<void>>();
  const { tollgate } = servicesOf(context);
  const audience = tollgate.subscriptions.audience();
  const react = (record: DynamoDBRecord) => {
    const key = itemKey(record);
    const run = (previous.get(key) ?? Promise.resolve()).then(() => tollgate.react({ old: image(record.dynamodb?.OldImage), new: image(record.dynamodb?.NewImage) }, audience));
    previous.set(key, run);
    return run;
  };
  return processPartialResponse(event, react, processor, { context, processInParallel: true });
};
