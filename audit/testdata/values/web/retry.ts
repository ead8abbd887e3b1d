import Anthropic from "@anthropic-ai/sdk";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The loop a new user writes: the bound is the parameter's default.
export async function withRetries<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
  let last: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      last = err;
      await sleep(250 * attempt);
    }
  }
  throw last;
}

const MAX_RETRIES = 5;

export const client = new Anthropic({ maxRetries: MAX_RETRIES });
