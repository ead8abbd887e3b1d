from anthropic import Anthropic
client = Anthropic()
