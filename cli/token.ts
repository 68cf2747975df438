/** `tollgate token`: mint a bearer token for the local runtime (HS256, as `npm start` prints them). */
import { Option, type Command } from "commander";
import { env } from "../functions/shared/env.js";
import { Claims, Role } from "../functions/shared/schemas.js";
import { DEV_SECRET, mintToken } from "../local/tokens.js";
import { usageError } from "./exit.js";
import { print, printJson } from "./output.js";
import { wholeNumber, settingsOf } from "./settings.js";

const THIRTY_DAYS = 30 * 86_400;

export function tokenCommand(program: Command) {
  program
    .command("token")
    .description(`mint a token (signed with $${env.jwtSecret}, or the development secret of \`tollgate start\` when unset)`)
    .addOption(new Option("--role <role>", "who the token speaks for").choices(Role.options).makeOptionMandatory())
    .option("--tenant <tenant>", "the tenant", "dev")
    .option("--sub <sub>", "who: the token's subject (default: dev-<role>)")
    .option("--ttl <seconds>", "lifetime in seconds", String(THIRTY_DAYS))
    .addOption(new Option("--secret <secret>", "the HS256 secret").env(env.jwtSecret))
    .action(async (o: { role: Role; tenant: string; sub?: string; ttl: string; secret?: string }, command: Command) => {
      const claims = { sub: o.sub ?? `dev-${o.role}`, tenant: o.tenant, role: o.role };
      const checked = Claims.omit({ exp: true }).safeParse(claims);
      if (!checked.success) throw usageError(`--${String(checked.error.issues[0].path[0])}: ${checked.error.issues[0].message}`);
      const ttl = wholeNumber(o.ttl, "--ttl", 1, 10 * 365 * 86_400);
      const token = await mintToken(o.secret || DEV_SECRET, claims, ttl);
      if (!settingsOf(command).json) return print(token);
      printJson({ token, ...claims, expires_at: new Date(Date.now() + ttl * 1000).toISOString() });
    });
}
