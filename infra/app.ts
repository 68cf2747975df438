/** CDK entry (cdk.json: `node --import tsx infra/app.ts`). */
import { createTollgateApp } from "./tollgate-app.js";

const { app } = createTollgateApp();
app.synth();
