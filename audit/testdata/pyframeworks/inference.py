# Shapes from Azure/azure-sdk-for-python sdk/ai/azure-ai-inference samples:
# ChatCompletionsClient with default and narrowed retries; a Blob client
# retries by the storage package's own ExponentialRetry (4 attempts).
from azure.ai.inference import ChatCompletionsClient
from azure.core.credentials import AzureKeyCredential
from azure.storage.blob import BlobServiceClient

client = ChatCompletionsClient(endpoint="https://example.invalid", credential=AzureKeyCredential("k"))
strict = ChatCompletionsClient(
    endpoint="https://example.invalid",
    credential=AzureKeyCredential("k"),
    retry_total=2,
)
blobs = BlobServiceClient(account_url="https://example.invalid", credential="k")
