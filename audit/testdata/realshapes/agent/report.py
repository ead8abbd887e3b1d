from langchain.chat_models import init_chat_model
from langchain_core.messages import HumanMessage

from .settings import Settings

settings = Settings()

# The model is configurable at run time: any provider.
model = init_chat_model(configurable_fields=("model", "max_tokens", "api_key"))
local = init_chat_model("ollama:llama3.1")


async def write_report(findings: str) -> str:
    retries = 0
    max_retries = 2
    while retries <= max_retries:
        try:
            out = await model.ainvoke([HumanMessage(content=findings)])
            return str(out.content)
        except Exception as e:
            if "context_length" not in str(e):
                raise
            retries += 1
            findings = findings[: int(len(findings) * 0.9)]
    return "report failed"


async def drain(queue):
    seen = 0
    while seen < 10:
        try:
            item = queue.get_nowait()
        except Exception:
            break
        seen += 1
