/**
 * Sign-in the stack makes when asked (`tollgate:cognito`): a Cognito user pool for the company's
 * people, an app client for the inbox (authorization code with PKCE, no secret) and one for
 * machines (client credentials for the `tollgate/runner` scope). Its issuer joins the accepted
 * ones with this mapping: groups `tollgate-approvers` -> human, `tollgate-admins` -> service, the
 * `tollgate/runner` scope -> runner, every identity in the one configured tenant.
 */
import { Duration, type RemovalPolicy, Stack, Validations } from "aws-cdk-lib";
import * as cognito from "aws-cdk-lib/aws-cognito";
import type { Construct } from "constructs";
import type { CognitoConfig } from "./config.js";
import { StackPart } from "./part.js";

export interface SignInProps {
  config: CognitoConfig;
  removalPolicy: RemovalPolicy;
}

export const cognitoGroups = { human: "tollgate-approvers", service: "tollgate-admins" } as const;

export class TollgateSignIn extends StackPart {
  readonly pool: cognito.UserPool;
  readonly domain: cognito.UserPoolDomain;
  readonly inboxClient: cognito.UserPoolClient;
  readonly machineClient: cognito.UserPoolClient;
  /** The issuer URL the pool's tokens carry as `iss`. */
  readonly issuer: string;
  /** The entry for TOLLGATE_OIDC_ISSUERS (docs/security.md "Sign-in with an OpenID Connect issuer"). */
  readonly issuerConfig: Record<string, unknown>;

  constructor(scope: Construct, id: string, props: SignInProps) {
    super(scope, id);
    const { config } = props;
    this.pool = new cognito.UserPool(this, "UserPool", {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: { minLength: 12, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      deletionProtection: true,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.pool).acknowledge({
      id: "AwsSolutions-COG8",
      reason: "Threat protection needs Cognito's Plus feature plan, billed per active user; the pool has no self sign-up and requires MFA. Enable it on the pool when the plan is wanted.",
    });
    for (const [role, group] of Object.entries(cognitoGroups)) {
      new cognito.CfnUserPoolGroup(this, `Group-${role}`, { userPoolId: this.pool.userPoolId, groupName: group, description: `Tollgate ${role} role` });
    }
    const runnerScope = new cognito.ResourceServerScope({ scopeName: "runner", scopeDescription: "Park on elicitations as a Tollgate runner" });
    const api = this.pool.addResourceServer("Api", { identifier: "tollgate", scopes: [runnerScope] });
    this.domain = this.pool.addDomain("Domain", { cognitoDomain: { domainPrefix: config.domainPrefix } });
    this.inboxClient = this.pool.addClient("InboxClient", {
      generateSecret: false,
      authFlows: {},
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL],
        callbackUrls: config.inboxUrls,
        logoutUrls: config.inboxUrls,
      },
      accessTokenValidity: Duration.minutes(15),
      idTokenValidity: Duration.minutes(15),
      refreshTokenValidity: Duration.hours(12),
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
    });
    this.machineClient = this.pool.addClient("MachineClient", {
      generateSecret: true,
      authFlows: {},
      oAuth: { flows: { clientCredentials: true }, scopes: [cognito.OAuthScope.resourceServer(api, runnerScope)] },
      accessTokenValidity: Duration.minutes(60),
      enableTokenRevocation: true,
    });
    const stack = Stack.of(this);
    this.issuer = `https://cognito-idp.${stack.region}.${stack.urlSuffix}/${this.pool.userPoolId}`;
    // Cognito's access tokens carry `client_id`, not `aud`; people's groups in `cognito:groups`, machines' scopes in `scope`.
    this.issuerConfig = {
      issuer: this.issuer,
      audience: [this.inboxClient.userPoolClientId, this.machineClient.userPoolClientId],
      audience_claim: "client_id",
      algorithms: ["RS256"],
      tenant: { value: config.tenant },
      role: { claim: ["cognito:groups", "scope"], map: { [cognitoGroups.service]: "service", [cognitoGroups.human]: "human", "tollgate/runner": "runner" } },
    };
  }
}
