# Shapes from stanfordnlp/dspy README and docs/learn/programming/language_models.md.
import dspy

lm = dspy.LM("openai/gpt-4o-mini")
patient = dspy.LM("anthropic/claude-sonnet-4-5", num_retries=8, max_tokens=4000)
dspy.configure(lm=lm)
