import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

// Trailing slashes off a base URL, as SDKs write it.
export const trimBase = (u: string) => u.replace(/\/*$/, '');

// A Markdown fence toggles code mode.
export function fences(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) {
    if (/^```/.test(line)) n++;
  }
  return n;
}

const banner = `model ${ `claude-${"3"}` } at ${trimBase("https://x/")}`;

export const anthropic = new Anthropic({ maxRetries: 5 });
export const openai = new OpenAI({ maxRetries: 4 });
