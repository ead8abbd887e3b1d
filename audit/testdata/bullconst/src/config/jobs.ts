import type { JobsOptions } from "bullmq";

export const DEFAULT_JOB_OPTIONS: Pick<JobsOptions, "attempts" | "backoff"> = {
  attempts: 5,
  backoff: { type: "exponential", delay: 5000 },
};

export const REPORT_JOB_OPTIONS = { attempts: 2, removeOnComplete: true };
