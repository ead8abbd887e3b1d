import { Queue } from "bullmq";
import { backOff } from "exponential-backoff";

import { env } from "./env";

type Jobs = { summarize: { docId: string } };

export const summaryQueue = new Queue<Jobs["summarize"]>("summaries", {
  defaultJobOptions: { attempts: env.SUMMARY_QUEUE_ATTEMPTS, backoff: { type: "exponential", delay: 5000 } },
});

export async function writeBatch(rows: unknown[], insert: (r: unknown[]) => Promise<void>) {
  await backOff(() => insert(rows), {
    numOfAttempts: env.EXPORTER_CLICKHOUSE_WRITE_MAX_ATTEMPTS_FOR_BATCHES,
    startingDelay: 200,
  });
}

export async function deleteFiles(paths: string[], remove: (p: string[]) => Promise<void>) {
  await backOff(() => remove(paths));
}
