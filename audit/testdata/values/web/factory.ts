import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

// The options object is built from locals of the knob's name.
export function makeOpenAI(apiKey: string, maxRetries = 4) {
  return new OpenAI({ apiKey, maxRetries });
}

export function makeAnthropic(opts: { maxRetries?: number } = {}) {
  return new Anthropic({ maxRetries: opts.maxRetries ?? 1 });
}
