// Shape from triggerdotdev/trigger.dev packages/cli-v3/templates/trigger.config.ts.template.
import { defineConfig } from "@trigger.dev/sdk/v3";

export default defineConfig({
  project: "proj_example",
  maxDuration: 3600,
  retries: {
    enabledInDev: false,
    default: {
      maxAttempts: 3,
      minTimeoutInMs: 1000,
      maxTimeoutInMs: 10000,
      factor: 2,
      randomize: true,
    },
  },
  dirs: ["./src/trigger"],
});
