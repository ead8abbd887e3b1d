from llama_index.core import VectorStoreIndex
from llama_index.llms.openai import OpenAI

llm = OpenAI(model="gpt-4o", temperature=0.1)


def build(docs):
    return VectorStoreIndex.from_documents(docs).as_query_engine(llm=llm)
