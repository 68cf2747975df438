/**
 * DynamoDB Streams: badge pushes, inbox events, schedules, notices and the verdict safety net.
 * Records run in order; after a failure the rest of the batch is reported failed too, so the
 * retry resumes at the first failed record without reordering one item's changes.
 */
import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { domain } from "./shared/clients.js";

const image = (raw: Record<string, unknown> | undefined) => (raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined);

export const handler = async (event: DynamoDBStreamEvent, context: Context) => {
  const processor = new BatchProcessor(EventType.DynamoDBStreams);
  let failed = false;
  const react = async (record: DynamoDBRecord) => {
    if (failed) throw new Error("an earlier record of this batch failed");
    try {
      await domain().react({ old: image(record.dynamodb?.OldImage), new: image(record.dynamodb?.NewImage) });
    } catch (error) {
      failed = true;
      throw error;
    }
  };
  return processPartialResponse(event, react, processor, { context, processInParallel: false });
};
