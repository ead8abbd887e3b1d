import boto3

client = boto3.client("bedrock-runtime", region_name="us-east-1")

def ask(body):
    return client.invoke_model(modelId="anthropic.claude-3-5-sonnet-20240620-v1:0", body=body)
