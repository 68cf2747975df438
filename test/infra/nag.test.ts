/**
 * cdk-nag (v3, AWS Solutions pack) and AWS Control Tower's proactive controls (cfn-guard, offline)
 * over the whole app: zero unacknowledged findings, every acknowledgment scoped to a construct
 * below the stack, with a reason, and still needed (a stale acknowledgment would hide a future
 * finding for no reason).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { Validations } from "aws-cdk-lib";
import * as sqs from "aws-cdk-lib/aws-sqs";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { createTollgateApp } from "../../infra/tollgate-app.js";
import { removeStubSourceRoot, stubSourceRoot } from "./helpers.js";

interface Violation {
  ruleName: string;
  violatingConstructs: { constructPath: string }[];
}

function nagRun(extra?: (stack: ReturnType<typeof createTollgateApp>["stack"]) => void, env?: { account?: string; region?: string }, context: Record<string, unknown> = {}) {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-nag-"));
  const { app, stack } = createTollgateApp({
    app: { outdir, context: { "aws:cdk:bundling-stacks": [], ...context } },
    stack: { sourceRoot: stubSourceRoot(), ...(env ? { env } : {}) },
  });
  extra?.(stack);
  let error: unknown;
  try {
    app.synth();
  } catch (e) {
    error = e;
  }
  const reportFile = path.join(outdir, "validation-report.json");
  const report = fs.existsSync(reportFile) ? JSON.parse(fs.readFileSync(reportFile, "utf8")) : { pluginReports: [] };
  fs.rmSync(outdir, { recursive: true, force: true });
  const violations: Violation[] = report.pluginReports.flatMap((p: { violations?: Violation[] }) => p.violations ?? []);
  return { app, stack, error, violations };
}

const describeViolations = (vs: Violation[]) => vs.map((v) => `${v.ruleName} @ ${v.violatingConstructs.map((c) => c.constructPath).join(", ")}`);

afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(removeStubSourceRoot);

describe("cdk-nag AwsSolutionsChecks and the Control Tower cfn-guard rules", () => {
  it("finds nothing unacknowledged in the Tollgate app", () => {
    const { error, violations } = nagRun();
    expect(describeViolations(violations)).toEqual([]);
    expect(error).toBeUndefined();
  }, 300_000);

  it("finds nothing unacknowledged with the account and region known (as `cdk synth` with a profile) and every opt-in on", () => {
    // ARNs then render with literal values (`us-east-1`), which the acknowledgment ids must follow.
    const { error, violations } = nagRun(
      undefined,
      { account: "123456789012", region: "us-east-1" },
      {
        "tollgate:apiGatewayCloudWatchRole": true,
        "tollgate:jwtSecretArn": "arn:aws:secretsmanager:us-east-1:123456789012:secret:tollgate/jwt-AbCdEf",
        "tollgate:jwtSecretKeyArn": "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        "tollgate:alarmEmail": "ops@example.com",
        "tollgate:cognito": true,
        "tollgate:cognitoDomainPrefix": "tollgate-example",
        "tollgate:inboxUrls": "https://inbox.example.com/",
        "tollgate:capacity": "provisioned",
      },
    );
    expect(describeViolations(violations)).toEqual([]);
    expect(error).toBeUndefined();
  }, 300_000);

  it("both are really running: an unencrypted, plain-HTTP queue added to the stack fails synthesis", () => {
    const { error, violations } = nagRun((stack) => {
      new sqs.Queue(stack, "NagProbe", { encryption: sqs.QueueEncryption.UNENCRYPTED });
    });
    expect((error as Error | undefined)?.name).toBe("ValidationFailed");
    const rules = violations.map((v) => v.ruleName).sort();
    expect(rules).toEqual(["AwsSolutions-SQS2", "AwsSolutions-SQS3", "AwsSolutions-SQS4", "sqs_dlq_check", "sqs_queue_encrypted_check"]);
    for (const v of violations) {
      expect(v.violatingConstructs.map((c) => c.constructPath)).toEqual(["Tollgate/NagProbe/Resource"]);
    }
  }, 300_000);

  it("every acknowledgment sits on a construct below the stack, has a real reason, and is still needed", () => {
    const { app } = createTollgateApp({
      app: { context: { "aws:cdk:bundling-stacks": [] } },
      stack: { sourceRoot: stubSourceRoot() },
      nag: false,
    });
    const acks: { path: string; rule: string; reason: string }[] = [];
    for (const c of app.node.findAll()) {
      for (const m of c.node.metadata) {
        if (m.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [rule, reason] of Object.entries(m.data as Record<string, string>)) {
          acks.push({ path: c.node.path, rule: rule.replace(/^[A-Za-z-]+::/, ""), reason });
        }
      }
    }
    expect(acks.length).toBeGreaterThan(0);
    for (const a of acks) {
      expect(a.path.split("/").length, `${a.rule} on ${a.path}: not stack-wide`).toBeGreaterThan(1);
      expect(a.reason.length, `${a.rule} on ${a.path}: reason`).toBeGreaterThanOrEqual(60);
    }

    // Same app, acknowledgments ignored: each one must match a real finding under its construct.
    vi.spyOn(Validations.prototype, "acknowledge").mockImplementation(() => {});
    const { violations } = nagRun();
    const stale = acks.filter((a) => !violations.some((v) => v.ruleName === a.rule && v.violatingConstructs.some((c) => c.constructPath === a.path || c.constructPath.startsWith(`${a.path}/`))));
    expect(stale).toEqual([]);
  }, 300_000);
});
