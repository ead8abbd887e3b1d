# Shapes from BerriAI/litellm docs (routing.md, reliable_completions.md):
# a Router with num_retries and fallbacks, completion(num_retries=N), the
# module-wide litellm.num_retries, and a plain completion() that retries
# nothing of its own.
import litellm
from litellm import Router, completion

model_list = [
    {"model_name": "gpt-4o", "litellm_params": {"model": "azure/gpt-4o", "api_base": "https://example.invalid"}},
    {"model_name": "claude", "litellm_params": {"model": "anthropic/claude-sonnet-4-5"}},
]

router = Router(model_list=model_list, num_retries=4, fallbacks=[{"gpt-4o": ["claude"]}])
default_router = Router(model_list=model_list)

litellm.num_retries = 5


def summarise(text: str) -> str:
    reply = completion(model="gpt-4o-mini", messages=[{"role": "user", "content": text}], num_retries=2)
    plain = litellm.completion(model="gpt-4o-mini", messages=[{"role": "user", "content": "num_retries=9"}])
    return reply.choices[0].message.content + plain.choices[0].message.content
