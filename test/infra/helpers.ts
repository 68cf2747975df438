/**
 * Shared setup of the infra tests: synthesise the Tollgate stack without bundling (fast) and
 * give the tests the template, the stack object and small helpers to follow references.
 *
 * Template tests build the functions from a stub source root (a temp dir with one trivial
 * handler per catalog entry) so that they test the infrastructure alone, whatever state the
 * handlers are in; bundle.test.ts bundles the real entry files.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { App, type Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, expect } from "vitest";
import { functions as catalog, type FunctionName, type FunctionSpec } from "../../functions/catalog.js";
import { repoRoot, TollgateStack } from "../../infra/stack.js";

let stubRoot: string | undefined;

export function stubSourceRoot(): string {
  if (stubRoot) return stubRoot;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tollgate-infra-"));
  fs.copyFileSync(path.join(repoRoot, "package-lock.json"), path.join(dir, "package-lock.json"));
  fs.copyFileSync(path.join(repoRoot, "tsconfig.json"), path.join(dir, "tsconfig.json"));
  for (const spec of Object.values(catalog)) {
    const file = path.join(dir, spec.entry);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, "export const handler = async () => ({ statusCode: 200 });\n");
  }
  stubRoot = dir;
  return dir;
}

/** Call from afterAll in each file that used stubSourceRoot(). */
export function removeStubSourceRoot(): void {
  if (stubRoot) fs.rmSync(stubRoot, { recursive: true, force: true });
  stubRoot = undefined;
}

export interface Synth {
  app: App;
  stack: TollgateStack;
  template: Template;
  json: CfnTemplate;
  /** Logical id of a catalog function's AWS::Lambda::Function. */
  fnId(name: FunctionName): string;
  /** Logical id of a catalog function's IAM role. */
  roleId(name: FunctionName): string;
}

export interface CfnTemplate {
  Resources: Record<string, { Type: string; Properties?: any; DependsOn?: string | string[]; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
  Outputs?: Record<string, { Value: unknown }>;
}

/**
 * The stack as deployed by default, synthesised once before the calling file's tests (its stub
 * sources removed after them). The object is filled in `beforeAll`: read it inside tests only.
 */
export function defaultStack(): Synth {
  const s = {} as Synth;
  beforeAll(() => void Object.assign(s, synth()), 120_000);
  afterAll(removeStubSourceRoot);
  return s;
}

export function synth(context: Record<string, unknown> = {}): Synth {
  const app = new App({ context: { "aws:cdk:bundling-stacks": [], ...context } });
  const stack = new TollgateStack(app, "Tollgate", { sourceRoot: stubSourceRoot() });
  const template = Template.fromStack(stack);
  const json = template.toJSON() as CfnTemplate;
  return {
    app,
    stack,
    template,
    json,
    fnId: (name) => logicalId(stack, stack.functions[name].fn.node.defaultChild),
    roleId: (name) => logicalId(stack, stack.functions[name].role.node.defaultChild),
  };
}

export function logicalId(stack: Stack, construct: unknown): string {
  return stack.getLogicalId(construct as Parameters<Stack["getLogicalId"]>[0]);
}

/** Every logical id a CloudFormation value refers to (Ref, Fn::GetAtt, Fn::Sub ${X}). */
export function refsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) refsIn(v, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "Ref" && typeof v === "string") out.add(v);
      else if (k === "Fn::GetAtt") out.add(Array.isArray(v) ? String(v[0]) : String(v).split(".")[0]);
      else if (k === "Fn::Sub") {
        const s = Array.isArray(v) ? v[0] : v;
        for (const m of String(s).matchAll(/\$\{([A-Za-z0-9]+)(?:\.[A-Za-z]+)?\}/g)) out.add(m[1]);
        if (Array.isArray(v)) refsIn(v[1], out);
      } else refsIn(v, out);
    }
  }
  return out;
}

export const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
  Principal?: unknown;
}

/** All identity-policy statements attached to a role (inline policies and AWS::IAM::Policy). */
export function statementsOf(json: CfnTemplate, roleLogicalId: string): Statement[] {
  const out: Statement[] = [];
  const role = json.Resources[roleLogicalId];
  for (const p of asArray(role?.Properties?.Policies)) out.push(...asArray<Statement>((p as any).PolicyDocument.Statement));
  for (const r of Object.values(json.Resources)) {
    if (r.Type !== "AWS::IAM::Policy") continue;
    const roles = asArray(r.Properties.Roles).map((x: any) => x.Ref);
    if (roles.includes(roleLogicalId)) out.push(...asArray<Statement>(r.Properties.PolicyDocument.Statement));
  }
  return out;
}

export const actionsOf = (statements: Statement[]): string[] => [...new Set(statements.flatMap((s) => asArray(s.Action)))].sort();

export const functionNames = Object.keys(catalog) as FunctionName[];

export const resourcesOfType = (json: CfnTemplate, type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);

/** The one item of a list, which the test expects to hold exactly one. */
export const only = <T>(items: T[], what: string): T => {
  expect(items, what).toHaveLength(1);
  return items[0];
};

export const spec = (name: FunctionName): FunctionSpec => catalog[name];
