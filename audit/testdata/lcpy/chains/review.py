from langchain_anthropic import ChatAnthropic
from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

prompt = ChatPromptTemplate.from_messages([("system", "Review the diff"), ("human", "{diff}")])
reviewer = ChatAnthropic(model="claude-sonnet-4-5", temperature=0)
summariser = ChatOpenAI(model="gpt-4o-mini", max_retries=5)
chain = (prompt | reviewer).with_retry(stop_after_attempt=2)
