import { Queue } from "bullmq";

export const reportQueue = new Queue("report");

export async function enqueueReport(sessionId: string) {
  await reportQueue.add(
    "report",
    { sessionId },
    {
      attempts: 4,
      backoff: { type: "exponential", delay: 2_000 },
      jobId: `report:${sessionId}`, // dedupe: same session, same job
    },
  );
}
