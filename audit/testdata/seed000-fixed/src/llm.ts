import Anthropic from "@anthropic-ai/sdk";

// SDK: off. The queue owns retries now.
export const anthropic = new Anthropic({ maxRetries: 0 });
