import Anthropic from "@anthropic-ai/sdk";

// layer 1: the SDK. I never touched this. Default is maxRetries: 2.
export const anthropic = new Anthropic();

export async function generateReport(session: { transcript: string }) {
  const msg = await anthropic.messages.create({
    model: "claude-sonnet-4-5",
    max_tokens: 4096,
    messages: [{ role: "user", content: session.transcript }],
  });
  return msg;
}
