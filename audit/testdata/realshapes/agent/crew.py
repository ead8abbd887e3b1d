from crewai import LLM, Agent, Crew, Task
from langchain_openai import ChatOpenAI

writer_llm = LLM(model="gpt-4o", temperature=0.4)
reviewer_llm = ChatOpenAI(model="gpt-4o-mini", max_retries=1)

researcher = Agent(role="Researcher", goal="Find sources", backstory="Careful.")
writer = Agent(role="Writer", goal="Draft", backstory="Terse.", llm=writer_llm, max_retry_limit=0)
reviewer = Agent(role="Reviewer", goal="Check", backstory="Strict.", llm=reviewer_llm)
local = Agent(role="Local", goal="Summarise", backstory="Offline.", llm="ollama/llama3.1")
claude = Agent(role="Editor", goal="Edit", backstory="Kind.", llm="anthropic/claude-sonnet-4-5")

crew = Crew(agents=[researcher, writer, reviewer, local, claude], tasks=[Task(description="x", expected_output="y", agent=writer)])
