import useSWR from "swr";

const fetcher = (url: string) => fetch(url).then((r) => r.json());

export function Votes({ chatId }: { chatId: string }) {
  const { data } = useSWR<Array<{ up: boolean }>>(
    `/api/vote?chatId=${chatId}`,
    fetcher,
  );
  return <span>{data?.filter((v) => v.up).length ?? 0}</span>;
}
