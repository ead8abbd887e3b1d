import anthropic

from .constants import cfg

client = anthropic.Anthropic(max_retries=2)


def run(messages, max_iters=20):
    empty_retries = 0
    for _ in range(max_iters):
        response = client.messages.create(model="m", max_tokens=1024, messages=messages)
        if not response.content:
            empty_retries += 1
            if empty_retries > cfg.empty_response_retry_max:
                raise RuntimeError(f"{empty_retries} consecutive empty responses")
            messages.append({"role": "user", "content": "Please continue."})
            continue
        empty_retries = 0
        return response


def count(items):
    seen = 0
    for item in items:
        seen += 1
        if seen > 100:
            raise ValueError("too many")
