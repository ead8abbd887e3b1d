import os

try:
    from together import Together
except ImportError:
    raise ImportError("The 'together' library is required: pip install together")


class TogetherLLM:
    def __init__(self, model="meta-llama/Llama-3.3-70B-Instruct-Turbo"):
        self.model = model
        self.client = Together(api_key=os.environ.get("TOGETHER_API_KEY"))
        self.quiet = Together(max_retries=0)

    def generate(self, messages):
        reply = self.client.chat.completions.create(model=self.model, messages=messages)
        return reply.choices[0].message.content
