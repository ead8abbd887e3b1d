import useSWR, { useSWRConfig } from "swr";

// SWR as a local store: no fetcher, nothing sent, nothing retried.
export function usePanel() {
  const { mutate } = useSWRConfig();
  const { data } = useSWR<{ open: boolean }>("panel", null, { fallbackData: { open: false } });
  return { open: data?.open, close: () => mutate("panel", { open: false }) };
}
