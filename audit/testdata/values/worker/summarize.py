from openai import OpenAI

from .settings import OPENAI_MAX_RETRIES

client = OpenAI(max_retries=OPENAI_MAX_RETRIES)
