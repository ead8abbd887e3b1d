import { z } from "zod";

export const env = z
  .object({
    EXPORTER_CLICKHOUSE_WRITE_MAX_ATTEMPTS_FOR_BATCHES: z.coerce
      .number()
      .positive()
      .default(4),
    SUMMARY_QUEUE_ATTEMPTS: z.coerce.number().positive().default(2),
  })
  .parse(process.env);
