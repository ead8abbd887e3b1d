"""A summarizer on LangChain's universal constructor, retried by with_retry."""
from langchain.chat_models import init_chat_model
from langchain_core.prompts import ChatPromptTemplate

llm = init_chat_model("anthropic:claude-sonnet-4-5", temperature=0, max_retries=3)
prompt = ChatPromptTemplate.from_messages([("user", "Summarize: {text}")])
chain = (prompt | llm).with_retry(stop_after_attempt=4)

fallback = init_chat_model("gpt-4o-mini")
