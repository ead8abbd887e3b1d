import { Queue } from "bullmq";
import { DEFAULT_JOB_OPTIONS } from "../config/jobs";
import { MAIL_OPTIONS } from "./mail-options";

export const drafts = new Queue("drafts", { connection: {}, defaultJobOptions: DEFAULT_JOB_OPTIONS });
export const mail = new Queue("mail", { connection: {}, defaultJobOptions: MAIL_OPTIONS });
