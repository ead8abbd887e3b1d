from langchain.embeddings import OpenAIEmbeddings
from langchain.embeddings.base import Embeddings
from langchain_openai import OpenAIEmbeddings as NewEmbeddings
from langchain.embeddings.openai import OpenAIEmbeddings as Direct


class Memory:
    def __enter__(self):
        self.embeddings: Embeddings = OpenAIEmbeddings(
            client=None,
            openai_api_key="sk-test",
        )
        self.fast = NewEmbeddings(model="text-embedding-3-small")
        self.tuned = Direct(max_retries=3)
        return self


# Not a model: the interface, subclassed.
class Fake(Embeddings):
    def embed_query(self, text):
        return [0.0]
