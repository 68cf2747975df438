/** The lifecycle tests once more with the Scheduler firing up to 2 s late, as the cloud's one-minute precision may. */
import { harnessDefaults } from "./support/tollgate.js";

harnessDefaults({ schedulerJitterSeconds: 2 });
await import("./lifecycle.test.js");
