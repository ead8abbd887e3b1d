import Anthropic from "@anthropic-ai/sdk";
export const c = new Anthropic();
