import useSWRInfinite from "swr/infinite";

const fetcher = (url: string) => fetch(url).then((r) => r.json());

export function History() {
  const { data } = useSWRInfinite((i: number) => `/api/history?page=${i}`, fetcher, { revalidateFirstPage: false });
  return <ul>{data?.flat().map((h: { id: string }) => <li key={h.id}>{h.id}</li>)}</ul>;
}
