import instructor
from openai import OpenAI
from pydantic import BaseModel


class Invoice(BaseModel):
    vendor: str
    total: float


client = instructor.from_openai(OpenAI())
raw = OpenAI()


def extract(text: str) -> Invoice:
    return client.chat.completions.create(
        model="gpt-4o-mini",
        response_model=Invoice,
        messages=[{"role": "user", "content": text}],
    )


def summary(text: str) -> str:
    # the plain client's create: no response_model, not instructor's
    r = raw.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": text}])
    return r.choices[0].message.content
