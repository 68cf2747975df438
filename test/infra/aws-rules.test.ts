/**
 * What AWS requires of the template beyond CloudFormation's syntax, where a valid template
 * still deploys a stack that does not work: alarm e-mails that CloudWatch may not publish, an
 * account setting that fails a first deploy, a customer-keyed JWT secret nobody may decrypt,
 * schedules whose failures vanish.
 */
import { describe, expect, it } from "vitest";
import { functions as catalog, readsJwtSecret } from "../../functions/catalog.js";
import { env } from "../../functions/shared/env.js";
import { actionsOf, asArray, type CfnTemplate, defaultStack, functionNames, logicalId, resourcesOfType, type Statement, statementsOf, type Synth, synth } from "./helpers.js";

const s = defaultStack();

const alarmIds = (json: CfnTemplate) => resourcesOfType(json, "AWS::CloudWatch::Alarm").map(([id]) => id);

describe("alarm e-mails: CloudWatch may publish to the encrypted topic, for these alarms only", () => {
  it("the topic policy (which replaces SNS's default) allows cloudwatch.amazonaws.com to publish for every alarm of the stack, from this account", () => {
    const topicId = logicalId(s.stack, s.stack.alarmTopic.node.defaultChild);
    const [[, policy]] = resourcesOfType(s.json, "AWS::SNS::TopicPolicy").filter(([, p]) => asArray(p.Properties.Topics).some((t: any) => t.Ref === topicId));
    const statements = asArray<Statement>(policy.Properties.PolicyDocument.Statement);
    // TLS only, still.
    expect(statements).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
    const publish = statements.filter((st) => st.Effect === "Allow" && JSON.stringify(st.Principal) === JSON.stringify({ Service: "cloudwatch.amazonaws.com" }));
    expect(publish).toHaveLength(1);
    expect(publish[0].Action).toBe("sns:Publish");
    expect(publish[0].Resource).toEqual({ Ref: topicId });
    expect(publish[0].Condition?.StringEquals).toEqual({ "aws:SourceAccount": { Ref: "AWS::AccountId" } });
    const sources = asArray(publish[0].Condition?.ArnEquals?.["aws:SourceArn"]);
    expect(sources).toEqual(expect.arrayContaining(alarmIds(s.json).map((id) => ({ "Fn::GetAtt": [id, "Arn"] }))));
    expect(sources).toHaveLength(alarmIds(s.json).length);
  });

  it("every alarm acts on a topic whose key lets CloudWatch encrypt (kms:GenerateDataKey*, kms:Decrypt), scoped to this account's alarms", () => {
    const alarms = resourcesOfType(s.json, "AWS::CloudWatch::Alarm");
    expect(alarms.length).toBeGreaterThan(0);
    for (const [id, alarm] of alarms) {
      for (const action of asArray(alarm.Properties.AlarmActions)) {
        const topic = s.json.Resources[(action as { Ref: string }).Ref];
        expect(topic?.Type, id).toBe("AWS::SNS::Topic");
        const key = s.json.Resources[topic.Properties.KmsMasterKeyId["Fn::GetAtt"][0]];
        const grants = asArray<Statement>(key.Properties.KeyPolicy.Statement).filter(
          (st) => st.Effect === "Allow" && JSON.stringify(st.Principal) === JSON.stringify({ Service: "cloudwatch.amazonaws.com" }),
        );
        expect(grants, id).toHaveLength(1);
        expect(asArray(grants[0].Action).sort()).toEqual(["kms:Decrypt", "kms:GenerateDataKey*"]);
        expect(grants[0].Condition?.StringEquals).toEqual({ "aws:SourceAccount": { Ref: "AWS::AccountId" } });
        expect(JSON.stringify(grants[0].Condition?.ArnLike?.["aws:SourceArn"])).toContain(":alarm:*");
      }
    }
  });
});

describe("the API Gateway account setting is opt-in", () => {
  const wsStage = (x: Synth) => {
    const wsApiId = logicalId(x.stack, x.stack.webSocketApi.node.defaultChild);
    return resourcesOfType(x.json, "AWS::ApiGatewayV2::Stage").find(([, r]) => r.Properties.ApiId.Ref === wsApiId)!;
  };

  it("by default there is no AWS::ApiGateway::Account nor its role, and the WebSocket stage asks for no access logs", () => {
    expect(resourcesOfType(s.json, "AWS::ApiGateway::Account")).toEqual([]);
    const roles = resourcesOfType(s.json, "AWS::IAM::Role").filter(([, r]) => JSON.stringify(r.Properties.AssumeRolePolicyDocument).includes("apigateway.amazonaws.com"));
    expect(roles).toEqual([]);
    const [, stage] = wsStage(s);
    expect(stage.Properties.AccessLogSettings).toBeUndefined();
    expect(asArray(stage.DependsOn)).toEqual([]);
  });

  it("tollgate:apiGatewayCloudWatchRole=true creates the role and the setting (retained), and the stage logs after it", () => {
    const c = synth({ "tollgate:apiGatewayCloudWatchRole": "true" });
    const [[accountId, account]] = resourcesOfType(c.json, "AWS::ApiGateway::Account");
    expect(account.DeletionPolicy).toBe("Retain");
    const [stageId, stage] = wsStage(c);
    expect(asArray(stage.DependsOn)).toContain(accountId);
    expect(stage.Properties.AccessLogSettings.Format).toContain("$context.connectionId");
    expect(stageId).toBeDefined();
  });

  it("tollgate:webSocketAccessLogs=true alone (the account already has a role) logs without touching the account setting", () => {
    const c = synth({ "tollgate:webSocketAccessLogs": true });
    expect(resourcesOfType(c.json, "AWS::ApiGateway::Account")).toEqual([]);
    const [, stage] = wsStage(c);
    expect(stage.Properties.AccessLogSettings.Format).toContain("$context.connectionId");
  });
});

describe("a bring-your-own JWT secret encrypted with a customer managed key", () => {
  const secretArn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tollgate/jwt-AbCdEf";
  const keyArn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

  it("exactly the functions that read the secret may decrypt with that key, through Secrets Manager only", () => {
    const c = synth({ "tollgate:jwtSecretArn": secretArn, "tollgate:jwtSecretKeyArn": keyArn });
    for (const name of functionNames) {
      const decrypt = statementsOf(c.json, c.roleId(name)).filter((st) => asArray(st.Action).some((a) => a.startsWith("kms:")));
      if (!readsJwtSecret(catalog[name])) {
        expect(decrypt, name).toEqual([]);
        continue;
      }
      expect(decrypt, name).toHaveLength(1);
      expect(decrypt[0].Action).toBe("kms:Decrypt");
      expect(decrypt[0].Resource).toBe(keyArn);
      expect(JSON.stringify(decrypt[0].Condition?.StringEquals?.["kms:ViaService"])).toContain("secretsmanager.");
    }
  });

  it("no function may use KMS without the key in context; a malformed key, or a key without a secret, is refused", () => {
    for (const name of functionNames)
      expect(
        actionsOf(statementsOf(s.json, s.roleId(name))).filter((a) => a.startsWith("kms:")),
        name,
      ).toEqual([]);
    expect(() => synth({ "tollgate:jwtSecretArn": secretArn, "tollgate:jwtSecretKeyArn": "alias/tollgate" })).toThrow(/jwtSecretKeyArn/);
    expect(() => synth({ "tollgate:jwtSecretKeyArn": keyArn })).toThrow(/only with tollgate:jwtSecretArn/);
  });
});

describe("schedules have a dead letter, and their failures alarm", () => {
  const dlqId = () => logicalId(s.stack, s.stack.schedules.deadLetterQueue.node.defaultChild);

  it("the dead-letter queue is encrypted and refuses plain HTTP", () => {
    expect(s.json.Resources[dlqId()].Properties.SqsManagedSseEnabled).toBe(true);
    const [[, policy]] = resourcesOfType(s.json, "AWS::SQS::QueuePolicy").filter(([, p]) => asArray(p.Properties.Queues).some((q: any) => q.Ref === dlqId()));
    expect(asArray<Statement>(policy.Properties.PolicyDocument.Statement)).toContainEqual(expect.objectContaining({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }));
  });

  it("the scheduler role may send to that queue and to nothing else", () => {
    const roleId = logicalId(s.stack, s.stack.schedulerRole.node.defaultChild);
    const sends = statementsOf(s.json, roleId).filter((st) => asArray(st.Action).some((a) => a.startsWith("sqs:")));
    expect(sends).toEqual([expect.objectContaining({ Action: "sqs:SendMessage", Resource: { "Fn::GetAtt": [dlqId(), "Arn"] } })]);
  });

  it.each(functionNames)("%s: has the queue's ARN iff it creates schedules", (name) => {
    const v = s.json.Resources[s.fnId(name)].Properties.Environment.Variables;
    expect(v[env.schedulerDeadLetterArn]).toEqual("scheduler" in catalog[name] ? { "Fn::GetAtt": [dlqId(), "Arn"] } : undefined);
  });

  it("alarms on the queue's depth and on the group's target errors, dropped and undeliverable invocations, to the alarm topic", () => {
    const topicId = logicalId(s.stack, s.stack.alarmTopic.node.defaultChild);
    const groupName = s.stack.scheduleGroup.scheduleGroupName;
    const alarms = resourcesOfType(s.json, "AWS::CloudWatch::Alarm").map(([, a]) => a.Properties);
    const onQueue = alarms.filter((a) => a.Namespace === "AWS/SQS" && JSON.stringify(a.Dimensions).includes(dlqId()));
    expect(onQueue.map((a) => a.MetricName)).toEqual(["ApproximateNumberOfMessagesVisible"]);
    const onGroup = alarms.filter((a) => a.Namespace === "AWS/Scheduler");
    expect(onGroup.map((a) => a.MetricName).sort()).toEqual(["InvocationDroppedCount", "InvocationsFailedToBeSentToDeadLetterCount", "TargetErrorCount"]);
    for (const a of [...onQueue, ...onGroup]) {
      expect(a.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(a.Threshold).toBe(1);
    }
    for (const a of onGroup) expect(a.Dimensions).toEqual([{ Name: "ScheduleGroup", Value: groupName }]);
  });
});
