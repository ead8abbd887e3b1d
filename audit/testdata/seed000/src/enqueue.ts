import { reportQueue } from "./queues";

// layer 3: added the week a worker got OOM-killed mid-job
export async function enqueueReport(sessionId: string) {
  await reportQueue.add("report", { sessionId }, { attempts: 7 });
}
