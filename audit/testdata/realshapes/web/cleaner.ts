// Near miss: a submission that stops waiting after a timeout and counts
// it; the metric is called in both branches, the command is not sent again.
declare function submit(q: string, signal: AbortSignal): Promise<void>;
declare function recordIncrement(name: string, n: number): void;

export async function submitCleanup(query: string, timeoutMs: number) {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await submit(query, ac.signal);
    recordIncrement("cleanup.submitted", 1);
  } catch (err) {
    if ((err as Error).name !== "AbortError") throw err;
    recordIncrement("cleanup.submit_aborted", 1);
  } finally {
    clearTimeout(t);
  }
}
