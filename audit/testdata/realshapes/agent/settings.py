from pydantic import BaseModel


class Settings(BaseModel):
    research_model: str = "openai:gpt-4.1"
