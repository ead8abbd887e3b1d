import Anthropic from "@anthropic-ai/sdk";

// The SDK as the job had it before the fix: its own retries left at the
// default, a two-minute timeout per request.
export const client = new Anthropic({ timeout: 120_000 });
