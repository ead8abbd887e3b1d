import Anthropic from '@anthropic-ai/sdk/index';

const anthropic = new Anthropic();

export async function results(batchId: string) {
  return anthropic.messages.batches.results(batchId);
}
