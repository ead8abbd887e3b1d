import { proxyActivities } from '@temporalio/workflow';
import type * as activities from './activities';

const { summarise } = proxyActivities<typeof activities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5, initialInterval: '2s' },
});

export async function summariseWorkflow(text: string): Promise<string> {
  return await summarise(text);
}
