import { ApolloClient, InMemoryCache, HttpLink, from } from "@apollo/client";
import { RetryLink } from "@apollo/client/link/retry";

const retry = new RetryLink({
  delay: { initial: 300, max: 5000, jitter: true },
  attempts: { max: 3 },
});

export const client = new ApolloClient({ link: from([retry, new HttpLink({ uri: "/graphql" })]), cache: new InMemoryCache() });
