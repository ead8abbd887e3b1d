import pRetry from "p-retry";
import { generateReport } from "./llm";

// layer 2: added the week a DNS blip killed 4 reports
export async function runReport(session: { transcript: string }) {
  return await pRetry(() => generateReport(session), { retries: 2 });
}
