// The job's own retry wrapper: three attempts, backoff 10 s × 2^i.
const MAX_ATTEMPTS = 3;

function isRetryable(err: unknown): boolean {
  const status = (err as { status?: number }).status;
  return status === undefined || status === 429 || status >= 500;
}

export async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (!isRetryable(err) || attempt === MAX_ATTEMPTS) throw err;
      const backoff = 10 * 2 ** (attempt - 1);
      await new Promise((r) => setTimeout(r, backoff * 1000));
    }
  }
  throw new Error("unreachable");
}
