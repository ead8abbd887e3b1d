import useSWR from "swr";

const fetcher = (url: string) => fetch(url).then((r) => r.json());

export function useReport(id: string) {
  return useSWR(`/api/report/${id}`, fetcher);
}
