/**
 * The functions' environment: each carries exactly the variables (functions/shared/env.ts) its
 * catalog entry needs, and the stack's context sets them or is refused at synth.
 */
import { describe, expect, it } from "vitest";
import { type FunctionName, readsJwtSecret, timerFunctions } from "../../functions/catalog.js";
import { env } from "../../functions/shared/env.js";
import { webSocketStageName } from "../../infra/stack.js";
import { asArray, defaultStack, functionNames, logicalId, resourcesOfType, spec, statementsOf, synth } from "./helpers.js";

const s = defaultStack();

describe("environment", () => {
  const vars = (name: FunctionName): Record<string, unknown> => s.json.Resources[s.fnId(name)].Properties.Environment.Variables;

  it.each(functionNames)("%s: has exactly the variables its catalog entry needs", (name) => {
    const f = spec(name);
    const v = vars(name);
    const tableId = logicalId(s.stack, s.stack.table.node.defaultChild);
    expect(v[env.table] !== undefined).toBe(f.table.length > 0);
    if (f.table.length > 0) expect(v[env.table]).toEqual({ Ref: tableId });

    expect(v[env.connectionsUrl] !== undefined).toBe(!!(f.connections || f.closesConnections));
    if (f.connections || f.closesConnections) {
      const wsApiId = logicalId(s.stack, s.stack.webSocketApi.node.defaultChild);
      expect(v[env.connectionsUrl]).toEqual({
        "Fn::Join": ["", ["https://", { Ref: wsApiId }, ".execute-api.", { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }, `/${webSocketStageName}`]],
      });
    }

    // A timer function that schedules itself reads its own ARN from its invocation (in its environment it would be a cycle).
    // Only the timers it schedules: their functions' ARNs, never its own.
    const scheduled = (f.scheduler ?? []) as readonly string[];
    for (const k of [env.schedulerGroup, env.schedulerRoleArn]) expect(v[k] !== undefined, k).toBe(!!f.scheduler);
    for (const [timer, target] of Object.entries(timerFunctions)) {
      const k = env.timerArn[timer as keyof typeof env.timerArn];
      if (scheduled.includes(timer) && target !== name) expect(v[k], timer).toEqual({ "Fn::GetAtt": [s.fnId(target), "Arn"] });
      else expect(v[k], timer).toBeUndefined();
    }
    if (f.scheduler) {
      expect(v[env.schedulerGroup]).toBe(s.stack.scheduleGroup.scheduleGroupName);
      expect(v[env.schedulerRoleArn]).toEqual({ "Fn::GetAtt": [logicalId(s.stack, s.stack.schedulerRole.node.defaultChild), "Arn"] });
    }

    expect(v[env.jwtSecretArn] !== undefined).toBe(readsJwtSecret(f));
    if (readsJwtSecret(f)) expect(v[env.jwtSecretArn]).toEqual({ Ref: logicalId(s.stack, s.stack.jwtSecret.node.defaultChild) });
    // The cloud never carries the raw secret in the environment.
    expect(v[env.jwtSecret]).toBeUndefined();

    const timed = !!f.scheduler || f.trigger.kind === "timer";
    expect(v[env.reconnectGraceSeconds]).toBe(timed ? "300" : undefined);
    expect(v[env.escalationGraceSeconds]).toBe(timed ? "120" : undefined);
    // Any function may resolve an elicitation or read the history: each knows the retention, in days.
    expect(v[env.historyRetentionDays]).toBe("90");
    expect(v[env.resolvedRetentionSeconds]).toBeUndefined();
    // The history is kept unless context turns it off.
    expect(v[env.history]).toBeUndefined();
  });

  // Several synths of the whole stack, each a few seconds.
  it("grace periods, the history's retention and keeping, and an existing JWT secret come from context", { timeout: 120_000 }, () => {
    const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tollgate/jwt-AbCdEf";
    const c = synth({
      "tollgate:reconnectGraceSeconds": 600,
      "tollgate:escalationGraceSeconds": "45",
      "tollgate:historyRetentionDays": "400",
      "tollgate:history": "false",
      "tollgate:jwtSecretArn": arn,
    });
    expect(resourcesOfType(c.json, "AWS::SecretsManager::Secret")).toEqual([]);
    for (const name of functionNames) {
      const v = c.json.Resources[c.fnId(name)].Properties.Environment.Variables;
      const f = spec(name);
      expect(v[env.historyRetentionDays]).toBe("400");
      expect(v[env.history]).toBe("off");
      if (f.scheduler || f.trigger.kind === "timer") {
        expect(v[env.reconnectGraceSeconds]).toBe("600");
        expect(v[env.escalationGraceSeconds]).toBe("45");
      }
      if (f.verifiesTokens) {
        expect(v[env.jwtSecretArn]).toBe(arn);
        const st = statementsOf(c.json, c.roleId(name)).filter((x) => asArray(x.Action).includes("secretsmanager:GetSecretValue"));
        expect(st.map((x) => x.Resource)).toEqual([arn]);
      }
    }
  });

  it("OpenID issuers from context go to exactly the functions that verify tokens; a malformed list is refused at synth", () => {
    const issuers = [{ issuer: "https://login.example.com", audience: "urn:tollgate:api", tenant: { value: "acme" }, role: { claim: "tollgate_role" } }];
    const c = synth({ "tollgate:oidcIssuers": issuers });
    for (const name of functionNames) {
      const v = c.json.Resources[c.fnId(name)].Properties.Environment.Variables;
      expect(v[env.oidcIssuers] === undefined ? undefined : JSON.parse(v[env.oidcIssuers]), name).toEqual(spec(name).verifiesTokens ? issuers : undefined);
      expect(s.json.Resources[s.fnId(name)].Properties.Environment.Variables[env.oidcIssuers], name).toBeUndefined();
    }
    expect(() => synth({ "tollgate:oidcIssuers": '[{"issuer":"not a url"}]' })).toThrow(/tollgate:oidcIssuers/);
    expect(() => synth({ "tollgate:oidcIssuers": "[{" })).toThrow(/tollgate:oidcIssuers/);
  });

  it("a partial secret ARN (no suffix) is granted with the ?????? suffix pattern", () => {
    const arn = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tollgate/jwt";
    const c = synth({ "tollgate:jwtSecretArn": arn });
    const st = statementsOf(c.json, c.roleId("httpGetSession")).filter((x) => asArray(x.Action).includes("secretsmanager:GetSecretValue"));
    expect(st.map((x) => x.Resource)).toEqual([`${arn}-??????`]);
  });

  it("rejects malformed context", () => {
    expect(() => synth({ "tollgate:deletionProtection": "maybe" })).toThrow(/deletionProtection/);
    expect(() => synth({ "tollgate:reconnectGraceSeconds": "soon" })).toThrow(/reconnectGraceSeconds/);
    expect(() => synth({ "tollgate:jwtSecretArn": "my-secret" })).toThrow(/jwtSecretArn/);
    expect(() => synth({ "tollgate:logRetentionDays": 31 })).toThrow(/logRetentionDays/);
    expect(() => synth({ "tollgate:history": "sometimes" })).toThrow(/tollgate:history/);
  });
});
