import os

from pydantic import BaseModel
from pydantic_ai import Agent

DEFAULT_MODEL = "openai:gpt-4o-mini"


class Summary(BaseModel):
    headline: str


def build(model_name: str | None = None) -> Agent:
    return Agent(
        model_name or os.getenv("SUMMARY_MODEL") or DEFAULT_MODEL,
        output_type=Summary,
    )


grader = Agent("anthropic:claude-sonnet-4-5", instructions="Grade the summary.")
