// Shape from inngest/inngest-js examples/*/inngest/client.ts.
import { Inngest } from "inngest";

export const inngest = new Inngest({ id: "summaries" });
