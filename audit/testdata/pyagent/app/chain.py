from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

prompt = ChatPromptTemplate.from_messages([("system", "You grade interviews."), ("human", "{input}")])

model = ChatOpenAI(model="gpt-4o-mini", temperature=0, max_retries=3)

chain = (prompt | model).with_retry(stop_after_attempt=2)
