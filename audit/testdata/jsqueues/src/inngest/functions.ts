// Shapes from inngest/inngest-js examples (createFunction in a file that
// imports only the client) and its docs: v4's triggers in the options, v3's
// trigger as the second argument.
import { inngest } from "./client";
import { callModel } from "../model";

export const summarise = inngest.createFunction(
  { id: "summarise", retries: 6, triggers: [{ event: "doc/uploaded" }] },
  async ({ event, step }) => {
    return step.run("call-model", () => callModel(event.data, { retries: 9 }));
  },
);

export const digest = inngest.createFunction(
  { id: "digest", concurrency: { limit: 2, retries: 8 } },
  { event: "digest/requested" },
  async ({ step }) => step.run("noop", () => "retries: 7 in a string is not a setting"),
);
