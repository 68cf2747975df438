/**
 * The functions' IAM roles: each grants exactly what its catalog entry (functions/catalog.ts) and
 * its trigger imply, on this stack's own resources, and nothing more.
 */
import { describe, expect, it } from "vitest";
import { type FunctionName, readsJwtSecret } from "../../functions/catalog.js";
import { mainTable } from "../../functions/shared/tables.js";
import { webSocketStageName } from "../../infra/stack.js";
import { actionsOf, asArray, defaultStack, functionNames, logicalId, resourcesOfType, spec, type Statement, statementsOf } from "./helpers.js";

const s = defaultStack();

describe("IAM: exactly the catalog's grants", () => {
  const tableRefs = () => {
    const tableId = logicalId(s.stack, s.stack.table.node.defaultChild);
    return { tableId, tableArn: { "Fn::GetAtt": [tableId, "Arn"] }, streamArn: { "Fn::GetAtt": [tableId, "StreamArn"] } };
  };

  /** Every action this function may call, as the catalog and its trigger imply. */
  function expectedActions(name: FunctionName): string[] {
    const f = spec(name);
    const actions = new Set<string>(["logs:CreateLogStream", "logs:PutLogEvents"]);
    for (const a of f.table) actions.add(`dynamodb:${a}`);
    if (f.connections || f.closesConnections) actions.add("execute-api:ManageConnections");
    if (f.scheduler) {
      for (const a of ["scheduler:CreateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule", "iam:PassRole"]) actions.add(a);
    }
    if (readsJwtSecret(f)) actions.add("secretsmanager:GetSecretValue");
    if (f.trigger.kind === "stream") {
      // The event source mapping reads the stream and sends failed batches to the failure queue.
      for (const a of ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"]) actions.add(a);
      for (const a of ["sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"]) actions.add(a);
    }
    if (f.trigger.kind === "timer") {
      // Asynchronous invokes that fail their retries go to the failure queue.
      for (const a of ["sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"]) actions.add(a);
    }
    return [...actions].sort();
  }

  it.each(functionNames)("%s: the role's actions are exactly those the catalog implies", (name) => {
    expect(actionsOf(statementsOf(s.json, s.roleId(name)))).toEqual(expectedActions(name));
  });

  it.each(functionNames)("%s: dynamodb item actions equal the catalog's `table` list, on the table (indexes only for Query)", (name) => {
    const { tableArn } = tableRefs();
    const statements = statementsOf(s.json, s.roleId(name));
    const itemActions = new Set(["GetItem", "BatchGetItem", "Query", "PutItem", "UpdateItem", "DeleteItem", "ConditionCheckItem"].map((a) => `dynamodb:${a}`));
    const onTable = statements.filter((st) => asArray(st.Action).some((a) => itemActions.has(a)));
    const granted = new Set(onTable.flatMap((st) => asArray(st.Action)));
    expect([...granted].sort()).toEqual(
      spec(name)
        .table.map((a) => `dynamodb:${a}`)
        .sort(),
    );
    for (const st of onTable) {
      expect(st.Effect).toBe("Allow");
      expect(st.Condition).toBeUndefined();
      const resources = asArray(st.Resource);
      const tableOnly = resources.length === 1 && JSON.stringify(resources[0]) === JSON.stringify(tableArn);
      if (!tableOnly) {
        // The index statement: Query only, on the two named indexes, no wildcard.
        expect(asArray(st.Action)).toEqual(["dynamodb:Query"]);
        expect(resources).toEqual(Object.values(mainTable.indexes).map((ix) => ({ "Fn::Join": ["", [tableArn, `/index/${ix.name}`]] })));
      }
    }
    const indexStatements = onTable.filter((st) => JSON.stringify(st.Resource).includes("/index/"));
    expect(indexStatements.length > 0, "index grant iff Query").toBe(spec(name).table.includes("Query" as never));
  });

  it.each(functionNames)("%s: execute-api:ManageConnections iff `connections` or `closesConnections`: POST on this stage's @connections only, and DELETE for `closesConnections`", (name) => {
    const f = spec(name);
    const st = statementsOf(s.json, s.roleId(name)).filter((x) => asArray(x.Action).includes("execute-api:ManageConnections"));
    if (!f.connections && !f.closesConnections) {
      expect(st).toEqual([]);
      return;
    }
    const wsApiId = logicalId(s.stack, s.stack.webSocketApi.node.defaultChild);
    const on = (verb: string) => ({
      "Fn::Join": [
        "",
        ["arn:", { Ref: "AWS::Partition" }, ":execute-api:", { Ref: "AWS::Region" }, ":", { Ref: "AWS::AccountId" }, ":", { Ref: wsApiId }, `/${webSocketStageName}/${verb}/@connections/*`],
      ],
    });
    expect(st).toHaveLength(1);
    expect(asArray(st[0].Action)).toEqual(["execute-api:ManageConnections"]);
    expect(asArray(st[0].Resource)).toEqual(f.closesConnections ? [on("POST"), on("DELETE")] : [on("POST")]);
  });

  it.each(functionNames)("%s: scheduler actions and iam:PassRole (scheduler role only) iff `scheduler`", (name) => {
    const statements = statementsOf(s.json, s.roleId(name));
    const sched = statements.filter((x) => asArray(x.Action).some((a) => a.startsWith("scheduler:")));
    const pass = statements.filter((x) => asArray(x.Action).includes("iam:PassRole"));
    if (!spec(name).scheduler) {
      expect(sched).toEqual([]);
      expect(pass).toEqual([]);
      return;
    }
    const groupName = s.stack.scheduleGroup.scheduleGroupName;
    expect(sched).toHaveLength(1);
    expect(asArray(sched[0].Action).sort()).toEqual(["scheduler:CreateSchedule", "scheduler:DeleteSchedule", "scheduler:GetSchedule"]);
    expect(JSON.stringify(sched[0].Resource)).toContain(`:schedule/${groupName}/*`);
    expect(pass).toHaveLength(1);
    expect(pass[0].Resource).toEqual({ "Fn::GetAtt": [logicalId(s.stack, s.stack.schedulerRole.node.defaultChild), "Arn"] });
    expect(pass[0].Condition).toEqual({ StringEquals: { "iam:PassedToService": "scheduler.amazonaws.com" } });
  });

  it.each(functionNames)("%s: secretsmanager:GetSecretValue on the JWT secret iff it verifies tokens or signs links", (name) => {
    const st = statementsOf(s.json, s.roleId(name)).filter((x) => asArray(x.Action).some((a) => a.startsWith("secretsmanager:")));
    if (!readsJwtSecret(spec(name))) {
      expect(st).toEqual([]);
      return;
    }
    const secretId = logicalId(s.stack, s.stack.jwtSecret.node.defaultChild);
    expect(st).toEqual([expect.objectContaining({ Action: "secretsmanager:GetSecretValue", Resource: { Ref: secretId } })]);
  });

  it("stream actions are on this table's stream only (ListStreams, which has no resource level, on *)", () => {
    const { streamArn } = tableRefs();
    for (const name of functionNames) {
      const st = statementsOf(s.json, s.roleId(name)).filter((x) =>
        asArray(x.Action).some((a) => ["dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"].includes(a)),
      );
      if (spec(name).trigger.kind !== "stream") {
        expect(st, name).toEqual([]);
        continue;
      }
      for (const x of st) {
        if (asArray(x.Action).includes("dynamodb:ListStreams")) {
          expect(asArray(x.Action)).toEqual(["dynamodb:ListStreams"]);
          expect(x.Resource).toBe("*");
        } else expect(x.Resource).toEqual(streamArn);
      }
    }
  });

  it("no statement anywhere grants a wildcard action", () => {
    for (const [id, r] of resourcesOfType(s.json, "AWS::IAM::Policy")) {
      for (const st of asArray<Statement>(r.Properties.PolicyDocument.Statement)) {
        for (const a of asArray(st.Action)) expect(a, id).not.toContain("*");
      }
    }
  });
});
