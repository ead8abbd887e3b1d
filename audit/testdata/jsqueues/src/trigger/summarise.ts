// Shapes from triggerdotdev/trigger.dev docs/tasks/overview.mdx: a task
// with its own retry, one without (trigger.config's default applies), and
// a schemaTask whose retry leaves maxAttempts to the default.
import { schemaTask, task } from "@trigger.dev/sdk";
import { z } from "zod";

export const summariseTask = task({
  id: "summarise",
  retry: {
    maxAttempts: 5,
    factor: 1.8,
    minTimeoutInMs: 500,
    maxTimeoutInMs: 30_000,
  },
  run: async (payload: { text: string }) => payload.text,
});

export const plainTask = task({
  id: "plain",
  run: async () => ({ retry: { maxAttempts: 40 } }),
});

export const validated = schemaTask({
  id: "validated",
  schema: z.object({ id: z.string() }),
  retry: { factor: 2 },
  run: async (payload) => payload.id,
});
