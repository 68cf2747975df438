/**
 * The table's capacity mode: on-demand unless context asks for provisioned capacity, which then puts
 * the table and every index under target-tracking auto scaling, reads and writes apart, between the
 * floor and the ceiling the context gives.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mainTable } from "../../functions/shared/tables.js";
import { only, removeStubSourceRoot, resourcesOfType, synth, type CfnTemplate } from "./helpers.js";

afterAll(removeStubSourceRoot);

const tableOf = (json: CfnTemplate) => only(resourcesOfType(json, "AWS::DynamoDB::Table"), "one table")[1].Properties;
const indexNames = Object.values(mainTable.indexes).map((ix) => ix.name);

/** Each scalable target as `<dimension> <index or table>`, with its range and its policy's target. */
function scaling(json: CfnTemplate) {
  const policies = resourcesOfType(json, "AWS::ApplicationAutoScaling::ScalingPolicy").map(([, p]) => p.Properties);
  return resourcesOfType(json, "AWS::ApplicationAutoScaling::ScalableTarget").map(([id, t]) => {
    const p = t.Properties;
    const path = p.ResourceId["Fn::Join"][1] as unknown[];
    const policy = only(
      policies.filter((q) => q.ScalingTargetId.Ref === id),
      `one policy on ${id}`,
    );
    return {
      what: `${p.ScalableDimension} ${typeof path.at(-1) === "string" ? String(path.at(-1)).replace(/^\/index\//, "") : "table"}`,
      min: p.MinCapacity,
      max: p.MaxCapacity,
      namespace: p.ServiceNamespace,
      role: JSON.stringify(p.RoleARN),
      target: policy.TargetTrackingScalingPolicyConfiguration.TargetValue,
      metric: policy.TargetTrackingScalingPolicyConfiguration.PredefinedMetricSpecification.PredefinedMetricType,
    };
  });
}

describe("the table's capacity", () => {
  it("is on-demand by default: no provisioned units, nothing scaled", () => {
    const { json } = synth();
    const table = tableOf(json);
    expect(table.BillingMode).toBe("PAY_PER_REQUEST");
    expect(table.ProvisionedThroughput).toBeUndefined();
    for (const ix of table.GlobalSecondaryIndexes) expect(ix.ProvisionedThroughput, ix.IndexName).toBeUndefined();
    expect(resourcesOfType(json, "AWS::ApplicationAutoScaling::ScalableTarget")).toEqual([]);
  });

  it("provisioned: the table and every index start at the floor and scale on utilisation up to the ceiling, through the service-linked role", () => {
    const { json } = synth({
      "tollgate:capacity": "provisioned",
      "tollgate:capacityMinWriteUnits": "20",
      "tollgate:capacityMaxWriteUnits": "3000",
      "tollgate:capacityMinReadUnits": 10,
      "tollgate:capacityMaxReadUnits": 2000,
      "tollgate:capacityTargetUtilization": "60",
    });
    const table = tableOf(json);
    expect(table.BillingMode ?? "PROVISIONED").toBe("PROVISIONED");
    expect(table.ProvisionedThroughput).toEqual({ ReadCapacityUnits: 10, WriteCapacityUnits: 20 });
    expect(table.GlobalSecondaryIndexes.map((ix: { IndexName: string }) => ix.IndexName).sort()).toEqual([...indexNames].sort());
    for (const ix of table.GlobalSecondaryIndexes) expect(ix.ProvisionedThroughput, ix.IndexName).toEqual({ ReadCapacityUnits: 10, WriteCapacityUnits: 20 });

    const targets = scaling(json);
    const expected = ["table", ...indexNames].flatMap((on) => {
      const prefix = on === "table" ? "dynamodb:table" : "dynamodb:index";
      return [
        { what: `${prefix}:ReadCapacityUnits ${on}`, min: 10, max: 2000, metric: "DynamoDBReadCapacityUtilization" },
        { what: `${prefix}:WriteCapacityUnits ${on}`, min: 20, max: 3000, metric: "DynamoDBWriteCapacityUtilization" },
      ];
    });
    expect(targets.map(({ what, min, max, metric }) => ({ what, min, max, metric })).sort((a, b) => a.what.localeCompare(b.what))).toEqual(expected.sort((a, b) => a.what.localeCompare(b.what)));
    for (const t of targets) {
      expect(t.target, t.what).toBe(60);
      expect(t.namespace).toBe("dynamodb");
      // Application Auto Scaling's own service-linked role: the stack makes no role for it.
      expect(t.role).toContain("AWSServiceRoleForApplicationAutoScaling_DynamoDBTable");
    }
  });

  it("provisioned with nothing else said: 5 to 10,000 units, a 70% target", () => {
    const targets = scaling(synth({ "tollgate:capacity": "provisioned" }).json);
    expect(targets).toHaveLength(2 * (1 + indexNames.length));
    for (const t of targets) expect([t.min, t.max, t.target]).toEqual([5, 10_000, 70]);
  });

  it("refuses at synth what it cannot deploy", () => {
    expect(() => synth({ "tollgate:capacity": "reserved" })).toThrow(/tollgate:capacity: expected on-demand or provisioned/);
    expect(() => synth({ "tollgate:capacityMinWriteUnits": "10" })).toThrow(/tollgate:capacityMinWriteUnits: only with tollgate:capacity=provisioned/);
    expect(() => synth({ "tollgate:capacity": "provisioned", "tollgate:capacityMinReadUnits": "50", "tollgate:capacityMaxReadUnits": "40" })).toThrow(
      /tollgate:capacityMaxReadUnits: must be at least/,
    );
    expect(() => synth({ "tollgate:capacity": "provisioned", "tollgate:capacityTargetUtilization": "95" })).toThrow(/tollgate:capacityTargetUtilization/);
    expect(() => synth({ "tollgate:capacity": "provisioned", "tollgate:capacityMinWriteUnits": "0" })).toThrow(/tollgate:capacityMinWriteUnits/);
  });
});
