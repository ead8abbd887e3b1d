import instructor
from openai import OpenAI
from pydantic import BaseModel


class Tag(BaseModel):
    name: str


client = instructor.patch(OpenAI(max_retries=0))


def tag(text: str) -> Tag:
    return client.chat.completions.create(model="gpt-4o-mini", response_model=Tag, messages=[{"role": "user", "content": text}])
