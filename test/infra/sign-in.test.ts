/**
 * The sign-in the stack makes when asked (`tollgate:cognito`): a user pool without self sign-up
 * and with MFA, an inbox client (code flow, no secret) and a machine client (client credentials
 * for `tollgate/runner`), and its issuer added, beside the configured ones, to exactly the
 * functions that verify tokens, mapped so the functions' own parser accepts it.
 */
import { Match } from "aws-cdk-lib/assertions";
import { afterAll, describe, expect, it } from "vitest";
import { env } from "../../functions/shared/env.js";
import { IssuerConfigs } from "../../functions/shared/oidc.js";
import { type FunctionSpec, functions as catalog } from "../../functions/catalog.js";
import { functionNames, removeStubSourceRoot, synth } from "./helpers.js";

afterAll(removeStubSourceRoot);

const cognito = { "tollgate:cognito": true, "tollgate:cognitoDomainPrefix": "acme-approvals", "tollgate:inboxUrls": "https://inbox.acme.example/", "tollgate:cognitoTenant": "acme" };

/** CloudFormation values with every intrinsic replaced by a placeholder, as the functions would see them resolved. */
function resolved(value: unknown): string {
  if (typeof value === "string") return value;
  const join = (value as { "Fn::Join"?: [string, unknown[]] })["Fn::Join"];
  if (join) return join[1].map(resolved).join(join[0]);
  return "https://cognito-idp.example.com/resolved";
}

describe("a user pool made by the stack", () => {
  it("is off by default", () => {
    const s = synth();
    s.template.resourceCountIs("AWS::Cognito::UserPool", 0);
    expect(s.json.Outputs?.IssuerUrl).toBeUndefined();
  });

  it("has no self sign-up, requires MFA and a strong password, and two clients: the inbox's without a secret, the machines' with client credentials only", () => {
    const s = synth(cognito);
    s.template.hasResourceProperties("AWS::Cognito::UserPool", {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: "ON",
      Policies: { PasswordPolicy: Match.objectLike({ MinimumLength: 12, RequireSymbols: true }) },
    });
    s.template.hasResourceProperties("AWS::Cognito::UserPoolClient", {
      GenerateSecret: false,
      AllowedOAuthFlows: ["code"],
      CallbackURLs: ["https://inbox.acme.example/"],
    });
    s.template.hasResourceProperties("AWS::Cognito::UserPoolClient", { GenerateSecret: true, AllowedOAuthFlows: ["client_credentials"] });
    s.template.hasResourceProperties("AWS::Cognito::UserPoolResourceServer", { Identifier: "tollgate", Scopes: [Match.objectLike({ ScopeName: "runner" })] });
    const machine = Object.values(s.template.findResources("AWS::Cognito::UserPoolClient", { Properties: { GenerateSecret: true } }))[0];
    expect(machine.Properties.AllowedOAuthScopes).toHaveLength(1);
    expect(JSON.stringify(machine.Properties.AllowedOAuthScopes[0])).toContain("/runner");
    s.template.hasResourceProperties("AWS::Cognito::UserPoolDomain", { Domain: "acme-approvals" });
    for (const output of ["IssuerUrl", "InboxClientId", "MachineClientId", "UserPoolId"]) expect(s.json.Outputs?.[output], output).toBeDefined();
  });

  it("joins the configured issuers on exactly the functions that verify tokens, in a form their parser accepts", () => {
    const configured = [{ issuer: "https://login.example.com", audience: "urn:tollgate:api", tenant: { value: "acme" }, role: { claim: "tollgate_role" } }];
    const s = synth({ ...cognito, "tollgate:oidcIssuers": configured });
    for (const name of functionNames) {
      const value = s.json.Resources[s.fnId(name)].Properties.Environment.Variables[env.oidcIssuers];
      if (!(catalog[name] as FunctionSpec).verifiesTokens) {
        expect(value, name).toBeUndefined();
        continue;
      }
      const issuers = IssuerConfigs.parse(JSON.parse(resolved(value)));
      expect(issuers.map((i) => i.issuer)[0], name).toBe("https://login.example.com");
      expect(issuers[1], name).toMatchObject({
        audience_claim: "client_id",
        tenant: { value: "acme" },
        role: { map: { "tollgate-approvers": "human", "tollgate-admins": "service", "tollgate/runner": "runner" } },
      });
    }
  });

  it("refuses to synthesize without a valid domain prefix or inbox URL", () => {
    expect(() => synth({ "tollgate:cognito": true, "tollgate:inboxUrls": "https://inbox.acme.example/" })).toThrow(/tollgate:cognitoDomainPrefix/);
    expect(() => synth({ ...cognito, "tollgate:cognitoDomainPrefix": "My_Pool" })).toThrow(/tollgate:cognitoDomainPrefix/);
    expect(() => synth({ ...cognito, "tollgate:inboxUrls": "http://inbox.acme.example/" })).toThrow(/tollgate:inboxUrls/);
  });
});
