import { generateText } from "ai";
import { openai } from "@ai-sdk/openai";
import OpenAI from "openai";

const raw = new OpenAI({ maxRetries: 4, timeout: 60_000 });

/* const old = new OpenAI({ maxRetries: 9 }); */

export async function summarise(text: string) {
  const { text: out } = await generateText({ model: openai("gpt-4o-mini"), prompt: text, maxRetries: 5 });
  return out;
}

export { raw };
