/**
 * `tollgate token`: mint a bearer token for the local runtime (HS256, as `npm start` prints them),
 * or fetch a machine token from an OpenID issuer with the client-credentials grant.
 */
import { Option, type Command } from "commander";
import { env } from "../functions/shared/env.js";
import { Claims, Role } from "../functions/shared/schemas.js";
import * as z from "../functions/shared/zod.js";
import { DEV_SECRET, mintToken } from "../local/tokens.js";
import { clientCredentials } from "../sdk/client-credentials.js";
import { CliError, EXIT, usageError } from "./exit.js";
import { print, printJson } from "./output.js";
import { wholeNumber, settingsOf } from "./settings.js";

const THIRTY_DAYS = 30 * 86_400;

interface TokenOptions {
  role?: Role;
  tenant: string;
  sub?: string;
  ttl: string;
  secret?: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  resource?: string;
}

async function fromIssuer(o: TokenOptions & { issuer: string }): Promise<string> {
  if (!o.clientId || !o.clientSecret) throw usageError("--issuer needs --client-id and --client-secret");
  try {
    return await clientCredentials({ issuer: o.issuer, clientId: o.clientId, clientSecret: o.clientSecret, scope: o.scope, resource: o.resource })();
  } catch (error) {
    throw new CliError(error instanceof TypeError ? EXIT.unreachable : EXIT.refused, `the issuer gave no token: ${(error as Error).message}`);
  }
}

async function minted(o: TokenOptions, json: boolean): Promise<void> {
  if (!o.role) throw usageError("--role is required (or --issuer to fetch a machine token)");
  const claims = { sub: o.sub ?? `dev-${o.role}`, tenant: o.tenant, role: o.role };
  const checked = z.omit(Claims, { exp: true }).safeParse(claims);
  if (!checked.success) throw usageError(`--${String(checked.error.issues[0].path[0])}: ${checked.error.issues[0].message}`);
  const ttl = wholeNumber(o.ttl, "--ttl", 1, 10 * 365 * 86_400);
  const token = await mintToken(o.secret || DEV_SECRET, claims, ttl);
  if (!json) return print(token);
  printJson({ token, ...claims, expires_at: new Date(Date.now() + ttl * 1000).toISOString() });
}

export function tokenCommand(program: Command) {
  program
    .command("token")
    .description(`mint a token (signed with $${env.jwtSecret}, or the development secret of \`tollgate start\` when unset), or fetch one from an OpenID issuer`)
    .addOption(new Option("--role <role>", "who the token speaks for").choices(Role.options))
    .option("--tenant <tenant>", "the tenant", "dev")
    .option("--sub <sub>", "who: the token's subject (default: dev-<role>)")
    .option("--ttl <seconds>", "lifetime in seconds", String(THIRTY_DAYS))
    .addOption(new Option("--secret <secret>", "the HS256 secret").env(env.jwtSecret))
    .addOption(new Option("--issuer <url>", "fetch a machine token from this OpenID issuer (client credentials)").env("TOLLGATE_OIDC_ISSUER"))
    .addOption(new Option("--client-id <id>", "the machine client's id").env("TOLLGATE_OIDC_CLIENT_ID"))
    .addOption(new Option("--client-secret <secret>", "the machine client's secret").env("TOLLGATE_OIDC_CLIENT_SECRET"))
    .option("--scope <scope>", "scopes to ask the issuer for")
    .option("--resource <uri>", "the audience Tollgate is configured with, as a resource indicator")
    .action(async (o: TokenOptions, command: Command) => {
      const json = Boolean(settingsOf(command).json);
      if (!o.issuer) return minted(o, json);
      const token = await fromIssuer({ ...o, issuer: o.issuer });
      if (!json) return print(token);
      printJson({ token, issuer: o.issuer, client_id: o.clientId });
    });
}
