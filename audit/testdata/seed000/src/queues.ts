import { Queue } from "bullmq";

export const reportQueue = new Queue("report", { connection: { host: "localhost", port: 6379 } });
