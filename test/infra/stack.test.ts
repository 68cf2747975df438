/**
 * Template tests of TollgateStack: everything the catalog (functions/catalog.ts) and the table
 * definition (functions/shared/tables.ts) say must be deployed, is. The roles' grants are checked in
 * iam-grants.test.ts, the functions' environment in environment.test.ts, the alarms in alarms.test.ts.
 */
import { Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { streamItemKinds, timerFunctions } from "../../functions/catalog.js";
import { mainTable } from "../../functions/shared/tables.js";
import { webSocketStageName } from "../../infra/stack.js";
import { actionsOf, asArray, defaultStack, functionNames, logicalId, only, refsIn, resourcesOfType, spec, statementsOf, synth } from "./helpers.js";

const s = defaultStack();

describe("table", () => {
  it("has the pk/sk keys, the GSIs (projected as tables.ts says), the stream, TTL, PITR and encryption of tables.ts", () => {
    const [id, table] = only(resourcesOfType(s.json, "AWS::DynamoDB::Table"), "one table");
    expect(id).toBe(logicalId(s.stack, s.stack.table.node.defaultChild));
    const p = table.Properties;
    expect(p.KeySchema).toEqual([
      { AttributeName: mainTable.partitionKey, KeyType: "HASH" },
      { AttributeName: mainTable.sortKey, KeyType: "RANGE" },
    ]);
    expect(p.BillingMode).toBe("PAY_PER_REQUEST");
    expect(p.StreamSpecification).toEqual({ StreamViewType: "NEW_AND_OLD_IMAGES" });
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: mainTable.timeToLive, Enabled: true });
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.SSESpecification).toEqual({ SSEEnabled: true });

    const indexes = Object.values(mainTable.indexes);
    expect(p.GlobalSecondaryIndexes).toHaveLength(indexes.length);
    for (const ix of indexes) {
      expect(p.GlobalSecondaryIndexes).toContainEqual({
        IndexName: ix.name,
        KeySchema: [
          { AttributeName: ix.partitionKey, KeyType: "HASH" },
          { AttributeName: ix.sortKey, KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: ix.projection },
      });
    }
    // The session indexes hold keys only: a count change on a session item writes neither.
    const keysOnly = p.GlobalSecondaryIndexes.filter((ix: { Projection: { ProjectionType: string } }) => ix.Projection.ProjectionType === "KEYS_ONLY");
    expect(keysOnly.map((ix: { IndexName: string }) => ix.IndexName).sort()).toEqual([mainTable.indexes.pendingSessions.name, mainTable.indexes.sessionsByTenant.name].sort());
    // Every key attribute is declared, as a string.
    const keyNames = new Set([mainTable.partitionKey, mainTable.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
    expect(p.AttributeDefinitions).toHaveLength(keyNames.size);
    for (const name of keyNames) expect(p.AttributeDefinitions).toContainEqual({ AttributeName: name, AttributeType: "S" });
  });

  it("is protected by default: deletion protection on, retained on stack deletion", () => {
    const [, table] = only(resourcesOfType(s.json, "AWS::DynamoDB::Table"), "one table");
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
    expect(table.DeletionPolicy).toBe("Retain");
    expect(table.UpdateReplacePolicy).toBe("Retain");
  });

  it("can be unprotected with context tollgate:deletionProtection=false (string, as from -c)", () => {
    const u = synth({ "tollgate:deletionProtection": "false" });
    const [, table] = only(resourcesOfType(u.json, "AWS::DynamoDB::Table"), "one table");
    expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    expect(table.DeletionPolicy).toBe("Delete");
  });
});

describe("functions", () => {
  it("one Lambda per catalog entry: Node.js 22, arm64, own log group with retention, bounded timeout", () => {
    const lambdas = resourcesOfType(s.json, "AWS::Lambda::Function");
    expect(lambdas).toHaveLength(functionNames.length);
    for (const name of functionNames) {
      const fn = s.json.Resources[s.fnId(name)];
      expect(fn?.Type, name).toBe("AWS::Lambda::Function");
      const p = fn.Properties;
      expect(p.Runtime, name).toBe("nodejs22.x");
      expect(p.Architectures, name).toEqual(["arm64"]);
      expect(p.Handler, name).toBe("index.handler");
      expect(p.MemorySize, name).toBeGreaterThanOrEqual(256);
      expect(p.MemorySize, name).toBeLessThanOrEqual(512);
      const kind = spec(name).trigger.kind;
      expect(p.Timeout, name).toBe(kind === "stream" ? 60 : kind === "timer" ? 30 : 10);
      // Source maps ship beside each bundle, but Node reads them only with tollgate:sourceMaps (each cold start pays for it).
      expect(p.Environment.Variables.NODE_OPTIONS, name).toBeUndefined();
      expect(p.Role, name).toEqual({ "Fn::GetAtt": [s.roleId(name), "Arn"] });
      const logGroupId = p.LoggingConfig.LogGroup.Ref;
      const logGroup = s.json.Resources[logGroupId];
      expect(logGroup.Type, name).toBe("AWS::Logs::LogGroup");
      expect(logGroup.Properties.RetentionInDays, name).toBe(30);
    }
  });

  it("maps stack traces to the sources in every function with context tollgate:sourceMaps=true", () => {
    const mapped = synth({ "tollgate:sourceMaps": "true" });
    for (const name of functionNames) {
      expect(mapped.json.Resources[mapped.fnId(name)].Properties.Environment.Variables.NODE_OPTIONS, name).toBe("--enable-source-maps");
    }
  });

  it("function roles carry no managed policies (no AWSLambdaBasicExecutionRole: own log group only)", () => {
    for (const name of functionNames) {
      const role = s.json.Resources[s.roleId(name)];
      expect(role.Properties.ManagedPolicyArns, name).toBeUndefined();
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([{ Action: "sts:AssumeRole", Effect: "Allow", Principal: { Service: "lambda.amazonaws.com" } }]);
      const logs = statementsOf(s.json, s.roleId(name)).filter((st) => actionsOf([st]).some((a) => a.startsWith("logs:")));
      const logGroupId = s.json.Resources[s.fnId(name)].Properties.LoggingConfig.LogGroup.Ref;
      expect(logs, name).toEqual([
        expect.objectContaining({
          Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
          Resource: { "Fn::GetAtt": [logGroupId, "Arn"] },
        }),
      ]);
    }
  });
});

describe("HTTP API", () => {
  const httpApiId = () => logicalId(s.stack, s.stack.httpApi.node.defaultChild);

  function integrationOf(route: { Properties?: any }) {
    const target = route.Properties.Target as { "Fn::Join": [string, [string, { Ref: string }]] };
    expect(target["Fn::Join"][1][0]).toBe("integrations/");
    return s.json.Resources[target["Fn::Join"][1][1].Ref];
  }

  const httpRoutes = () => resourcesOfType(s.json, "AWS::ApiGatewayV2::Route").filter(([, r]) => r.Properties.ApiId.Ref === httpApiId());

  it("has one route per catalog http trigger, wired to that function with payload format 2.0", () => {
    const expected = functionNames.filter((n) => spec(n).trigger.kind === "http");
    expect(httpRoutes()).toHaveLength(expected.length);
    for (const name of expected) {
      const t = spec(name).trigger as { method: string; path: string };
      const [, route] = only(
        httpRoutes().filter(([, r]) => r.Properties.RouteKey === `${t.method} ${t.path}`),
        `route ${t.method} ${t.path}`,
      );
      // Tokens are verified in the handlers (the protocol's error bodies): no API Gateway authorizer.
      expect(route.Properties.AuthorizationType).toBe("NONE");
      const integration = integrationOf(route);
      expect(integration.Type).toBe("AWS::ApiGatewayV2::Integration");
      expect(integration.Properties.IntegrationType).toBe("AWS_PROXY");
      expect(integration.Properties.PayloadFormatVersion).toBe("2.0");
      expect([...refsIn(integration.Properties.IntegrationUri)]).toEqual([s.fnId(name)]);
    }
  });

  it("each http function may be invoked by this API only", () => {
    for (const name of functionNames.filter((n) => spec(n).trigger.kind === "http")) {
      const perms = resourcesOfType(s.json, "AWS::Lambda::Permission").filter(([, r]) => refsIn(r.Properties.FunctionName).has(s.fnId(name)));
      expect(perms.length, name).toBeGreaterThan(0);
      for (const [, p] of perms) {
        expect(p.Properties.Principal).toBe("apigateway.amazonaws.com");
        expect(refsIn(p.Properties.SourceArn).has(httpApiId()), name).toBe(true);
      }
    }
  });

  it("has no authorizer, and a $default stage with throttling and JSON access logs", () => {
    expect(resourcesOfType(s.json, "AWS::ApiGatewayV2::Authorizer").filter(([, r]) => r.Properties.ApiId.Ref === httpApiId())).toEqual([]);
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      ApiId: { Ref: httpApiId() },
      StageName: "$default",
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp("\\$context\\.requestId") },
    });
  });
});

describe("WebSocket API", () => {
  const wsApiId = () => logicalId(s.stack, s.stack.webSocketApi.node.defaultChild);
  const wsRoutes = () => resourcesOfType(s.json, "AWS::ApiGatewayV2::Route").filter(([, r]) => r.Properties.ApiId.Ref === wsApiId());

  it("selects routes by $request.body.action", () => {
    expect(s.json.Resources[wsApiId()].Properties).toMatchObject({ ProtocolType: "WEBSOCKET", RouteSelectionExpression: "$request.body.action" });
  });

  it("has one route per catalog ws trigger, wired to that function; frames get a direct reply", () => {
    const expected = functionNames.filter((n) => spec(n).trigger.kind === "ws");
    expect(wsRoutes()).toHaveLength(expected.length);
    const responses = resourcesOfType(s.json, "AWS::ApiGatewayV2::RouteResponse");
    for (const name of expected) {
      const routeKey = (spec(name).trigger as { route: string }).route;
      const [routeId, route] = only(
        wsRoutes().filter(([, r]) => r.Properties.RouteKey === routeKey),
        `route ${routeKey}`,
      );
      const target = route.Properties.Target["Fn::Join"][1];
      const integration = s.json.Resources[target[1].Ref];
      expect(integration.Properties.IntegrationType).toBe("AWS_PROXY");
      expect(refsIn(integration.Properties.IntegrationUri).has(s.fnId(name)), routeKey).toBe(true);
      const replies = responses.filter(([, r]) => r.Properties.RouteId.Ref === routeId);
      const lifecycle = routeKey === "$connect" || routeKey === "$disconnect";
      expect(replies.length, `${routeKey} route response`).toBe(lifecycle ? 0 : 1);
      if (!lifecycle) expect(replies[0][1].Properties.RouteResponseKey).toBe("$default");
    }
  });

  it("$connect is authorised by the ws-authorizer function, with no mandatory identity source", () => {
    const [, connect] = only(
      wsRoutes().filter(([, r]) => r.Properties.RouteKey === "$connect"),
      "$connect",
    );
    expect(connect.Properties.AuthorizationType).toBe("CUSTOM");
    const authorizer = s.json.Resources[connect.Properties.AuthorizerId.Ref];
    expect(authorizer.Type).toBe("AWS::ApiGatewayV2::Authorizer");
    expect(authorizer.Properties.AuthorizerType).toBe("REQUEST");
    // Header or ?token=: neither may be required by API Gateway.
    expect(asArray(authorizer.Properties.IdentitySource)).toEqual([]);
    const authorizerFn = functionNames.find((n) => spec(n).trigger.kind === "ws-authorizer")!;
    expect(refsIn(authorizer.Properties.AuthorizerUri).has(s.fnId(authorizerFn))).toBe(true);
    for (const [, r] of wsRoutes().filter(([, r]) => r.Properties.RouteKey !== "$connect")) {
      expect(r.Properties.AuthorizationType ?? "NONE").toBe("NONE");
    }
  });

  it("the authorizer's identity source can be set by context (fallback: the ?token= query)", () => {
    const c = synth({ "tollgate:wsIdentitySource": "route.request.querystring.token" });
    const [, authorizer] = only(resourcesOfType(c.json, "AWS::ApiGatewayV2::Authorizer"), "authorizer");
    expect(authorizer.Properties.IdentitySource).toEqual(["route.request.querystring.token"]);
    expect(() => synth({ "tollgate:wsIdentitySource": "$request.header.Authorization" })).toThrow(/wsIdentitySource/);
  });

  it("has the `live` stage, auto-deployed and throttled (access logs: test/infra/aws-rules.test.ts)", () => {
    s.template.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
      ApiId: { Ref: wsApiId() },
      StageName: webSocketStageName,
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });
});

describe("DynamoDB stream", () => {
  it("feeds the streams function: TRIM_HORIZON, 100, partial batch failures, bisect, bounded retries and age, failure queue", () => {
    const streamFns = functionNames.filter((n) => spec(n).trigger.kind === "stream");
    const mappings = resourcesOfType(s.json, "AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(streamFns.length);
    const tableId = logicalId(s.stack, s.stack.table.node.defaultChild);
    const queueId = logicalId(s.stack, s.stack.failureQueue.node.defaultChild);
    for (const name of streamFns) {
      const [, m] = only(
        mappings.filter(([, r]) => r.Properties.FunctionName.Ref === s.fnId(name)),
        name,
      );
      expect(m.Properties).toMatchObject({
        EventSourceArn: { "Fn::GetAtt": [tableId, "StreamArn"] },
        StartingPosition: "TRIM_HORIZON",
        BatchSize: 100,
        FunctionResponseTypes: ["ReportBatchItemFailures"],
        BisectBatchOnFunctionError: true,
        MaximumRetryAttempts: 5,
        DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [queueId, "Arn"] } } },
      });
      // Only the item kinds the streams handler reacts to invoke it (event filtering is not billed).
      expect(m.Properties.FilterCriteria).toEqual({ Filters: [{ Pattern: JSON.stringify({ dynamodb: { NewImage: { kind: { S: [...streamItemKinds] } } } }) }] });
      expect(m.Properties.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
      expect(m.Properties.MaximumRecordAgeInSeconds).toBeLessThanOrEqual(24 * 3600);
    }
  });

  it("the failure queue is encrypted and refuses plain HTTP", () => {
    const queueId = logicalId(s.stack, s.stack.failureQueue.node.defaultChild);
    expect(s.json.Resources[queueId].Properties.SqsManagedSseEnabled).toBe(true);
    s.template.hasResourceProperties("AWS::SQS::QueuePolicy", {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })]),
      },
    });
  });
});

describe("scheduler", () => {
  it("has one schedule group", () => {
    only(resourcesOfType(s.json, "AWS::Scheduler::ScheduleGroup"), "schedule group");
  });

  it("the scheduler role is assumable by scheduler.amazonaws.com of this account and group only", () => {
    const role = s.json.Resources[logicalId(s.stack, s.stack.schedulerRole.node.defaultChild)];
    const groupId = logicalId(s.stack, s.stack.scheduleGroup.node.defaultChild);
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: "sts:AssumeRole",
        Effect: "Allow",
        Principal: { Service: "scheduler.amazonaws.com" },
        Condition: {
          StringEquals: { "aws:SourceAccount": { Ref: "AWS::AccountId" }, "aws:SourceArn": { "Fn::GetAtt": [groupId, "Arn"] } },
        },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it("the scheduler role may invoke the timer functions and send dead letters, nothing else", () => {
    const roleId = logicalId(s.stack, s.stack.schedulerRole.node.defaultChild);
    expect(actionsOf(statementsOf(s.json, roleId))).toEqual(["lambda:InvokeFunction", "sqs:SendMessage"]);
    const statements = statementsOf(s.json, roleId).filter((st) => st.Action === "lambda:InvokeFunction");
    const invoked = statements.flatMap((st) => asArray(st.Resource));
    const timers = Object.values(timerFunctions).map((n) => ({ "Fn::GetAtt": [s.fnId(n), "Arn"] }));
    expect(invoked).toHaveLength(timers.length);
    expect(invoked).toEqual(expect.arrayContaining(timers));
    // The catalog's timer triggers and timerFunctions agree.
    const timerTriggered = functionNames.filter((n) => spec(n).trigger.kind === "timer").sort();
    expect(Object.values(timerFunctions).sort()).toEqual(timerTriggered);
  });

  it("timer functions send invocations that fail all retries to the failure queue", () => {
    const queueId = logicalId(s.stack, s.stack.failureQueue.node.defaultChild);
    for (const name of Object.values(timerFunctions)) {
      s.template.hasResourceProperties("AWS::Lambda::EventInvokeConfig", {
        FunctionName: { Ref: s.fnId(name) },
        MaximumRetryAttempts: 2,
        DestinationConfig: { OnFailure: { Destination: { "Fn::GetAtt": [queueId, "Arn"] } } },
      });
    }
  });
});

describe("outputs", () => {
  it("outputs the HTTP URL, the WebSocket URL and the table name", () => {
    const outputs = s.json.Outputs ?? {};
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(["HttpUrl", "WebSocketUrl", "TableName"]));
    expect(JSON.stringify(outputs.WebSocketUrl.Value)).toContain("wss://");
    expect(JSON.stringify(outputs.HttpUrl.Value)).toContain("https://");
    expect(outputs.TableName.Value).toEqual({ Ref: logicalId(s.stack, s.stack.table.node.defaultChild) });
  });
});

describe("deployability", () => {
  it("the stack's parts are invisible to CloudFormation: what holds state keeps its logical id and name", () => {
    // A new logical id or name replaces the resource on update: data, secret, queued failures,
    // the stream's position or pending schedules would be lost. These are the ids and names
    // the stack gave them when everything sat directly under it.
    const typeOf = (id: string) => s.json.Resources[id]?.Type;
    expect(typeOf("ElicitationsF5B48C82")).toBe("AWS::DynamoDB::Table");
    expect(typeOf("JwtSecretB8834B39")).toBe("AWS::SecretsManager::Secret");
    expect(typeOf("FailureQueue4F308C52")).toBe("AWS::SQS::Queue");
    expect(typeOf("AlarmKeyE05DE300")).toBe("AWS::KMS::Key");
    expect(typeOf("AlarmTopicD01E77F9")).toBe("AWS::SNS::Topic");
    expect(typeOf("StreamsFunctionDynamoDBEventSourceTollgateElicitationsCF34703D2B898D7E")).toBe("AWS::Lambda::EventSourceMapping");
    expect(s.json.Resources.ScheduleGroup4D377372?.Properties.Name).toBe("Tollgate-ScheduleGroup-6A69BFB5");
    expect(s.stack.node.tryFindChild("Data")).toBeDefined();
  });

  it("has no dependency cycle between resources (CloudFormation would refuse it)", () => {
    const graph = new Map<string, Set<string>>();
    for (const [id, r] of Object.entries(s.json.Resources)) {
      const deps = refsIn(r.Properties ?? {});
      for (const d of asArray(r.DependsOn)) deps.add(d);
      graph.set(id, new Set([...deps].filter((d) => d in s.json.Resources)));
    }
    const state = new Map<string, "visiting" | "done">();
    const cycle: string[] = [];
    const visit = (id: string, trail: string[]): boolean => {
      if (state.get(id) === "done") return false;
      if (state.get(id) === "visiting") {
        cycle.push(...trail.slice(trail.indexOf(id)), id);
        return true;
      }
      state.set(id, "visiting");
      for (const d of graph.get(id) ?? []) if (visit(d, [...trail, id])) return true;
      state.set(id, "done");
      return false;
    };
    for (const id of graph.keys()) if (visit(id, [])) break;
    expect(cycle).toEqual([]);
  });

  it("every function depends on its role's policy (no cold start without its grants)", () => {
    for (const name of functionNames) {
      const policy = resourcesOfType(s.json, "AWS::IAM::Policy").find(([, r]) => asArray(r.Properties.Roles).some((x: any) => x.Ref === s.roleId(name)));
      expect(policy, name).toBeDefined();
      expect(asArray(s.json.Resources[s.fnId(name)].DependsOn), name).toContain(policy![0]);
    }
  });
});
