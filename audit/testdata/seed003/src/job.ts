import { withRetry } from "./wrapper.js";
import { generateStreaming } from "./watchdog.js";

const RUNTIME_ASSUMPTIONS = {
  "anthropic-sdk.maxRetries": "default (2)",
  "streaming-idle-watchdog": "on / 300s idle -> abort+retry",
  "scheduler.rerunsOnFailure": 1,
} as const;

console.log(`[assumptions] ${JSON.stringify(RUNTIME_ASSUMPTIONS)}`);

const article = await withRetry(() => generateStreaming("Write tonight's article for site-a."));
console.log(article.length);
