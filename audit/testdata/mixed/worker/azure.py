import os

from openai.lib.azure import AzureOpenAI

client = AzureOpenAI(
    api_version="2024-10-21",
    azure_endpoint=os.environ["AZURE_OPENAI_ENDPOINT"],
    max_retries=1,
)
