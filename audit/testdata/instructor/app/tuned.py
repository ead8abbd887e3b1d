import instructor
from anthropic import Anthropic
from pydantic import BaseModel


class Person(BaseModel):
    name: str


client = instructor.from_anthropic(Anthropic())


def person(text: str) -> Person:
    return client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=512,
        max_retries=2,
        response_model=Person,
        messages=[{"role": "user", "content": text}],
    )
