# Shapes from pydantic/pydantic-ai docs/retries.md and docs/agents.md:
# an Agent with one retry budget for both kinds, and one per kind.
from pydantic_ai import Agent

triage = Agent("openai:gpt-4o", retries=3)

extractor = Agent(
    "anthropic:claude-sonnet-4-5",
    retries={"tools": 2, "output": 4},
    instructions="Extract the invoice fields.",
)

# pydantic-ai examples/pydantic_ai_examples/flight_booking.py subscripts the
# class with its dependency and output types.
search_agent = Agent[dict, str]("openai:gpt-4o", retries=4)
