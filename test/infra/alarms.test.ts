/**
 * Template tests of the stack's alarms (infra/alarms.ts): each function's errors and throttles, the
 * failure queue, and the requests the table throttled, all sent to the encrypted topic.
 */
import { describe, expect, it } from "vitest";
import { defaultStack, functionNames, logicalId, only, refsIn, resourcesOfType, spec } from "./helpers.js";

const s = defaultStack();

describe("alarms", () => {
  it("alarms on every function's errors and throttles, and on the failure queue, all to the encrypted topic", () => {
    const topicId = logicalId(s.stack, s.stack.alarmTopic.node.defaultChild);
    expect(s.json.Resources[topicId].Properties.KmsMasterKeyId).toBeDefined();
    const alarms = resourcesOfType(s.json, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    for (const a of alarms) expect(a.AlarmActions).toEqual([{ Ref: topicId }]);
    for (const name of functionNames) {
      for (const metric of ["Errors", "Throttles"]) {
        const hits = alarms.filter((a) => a.MetricName === metric && a.Namespace === "AWS/Lambda" && a.Dimensions?.[0]?.Value?.Ref === s.fnId(name));
        expect(hits.length, `${name} ${metric}`).toBe(1);
      }
    }
    const queueId = logicalId(s.stack, s.stack.failureQueue.node.defaultChild);
    expect(alarms.filter((a) => a.Namespace === "AWS/SQS" && a.MetricName === "ApproximateNumberOfMessagesVisible" && refsIn(a.Dimensions).has(queueId))).toHaveLength(1);
  });

  it("alarms on requests the table throttled, summed over every operation the functions call", () => {
    const tableId = logicalId(s.stack, s.stack.table.node.defaultChild);
    const [, alarm] = only(
      resourcesOfType(s.json, "AWS::CloudWatch::Alarm").filter(([, a]) => a.Properties.Metrics?.some((m: any) => m.MetricStat?.Metric?.MetricName === "ThrottledRequests")),
      "one throttled-requests alarm",
    );
    const p = alarm.Properties;
    expect([p.Threshold, p.ComparisonOperator, p.TreatMissingData]).toEqual([1, "GreaterThanOrEqualToThreshold", "notBreaching"]);
    const [expression, ...metrics] = p.Metrics;
    // A sum that skips an operation with no data (plain `a + b` would be missing whenever one is).
    expect(expression).toMatchObject({ Expression: "SUM(METRICS())", ReturnData: true });
    const operations = metrics.map((m: any) => {
      const dims = Object.fromEntries(m.MetricStat.Metric.Dimensions.map((d: any) => [d.Name, d.Value]));
      expect(dims.TableName).toEqual({ Ref: tableId });
      expect([m.MetricStat.Metric.Namespace, m.MetricStat.Stat, m.ReturnData]).toEqual(["AWS/DynamoDB", "Sum", false]);
      return dims.Operation;
    });
    const called = new Set(functionNames.flatMap((name) => spec(name).table));
    expect(operations.sort()).toEqual([...called, "TransactWriteItems"].sort());
  });
});
