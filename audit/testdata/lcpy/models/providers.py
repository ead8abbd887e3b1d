from langchain_aws import ChatBedrock
from langchain_google_genai import ChatGoogleGenerativeAI
from langchain_google_vertexai import ChatVertexAI

gemini = ChatGoogleGenerativeAI(model="gemini-2.5-flash")
vertex = ChatVertexAI(model_name="gemini-2.5-pro", max_retries=2)
bedrock = ChatBedrock(model_id="anthropic.claude-3-5-sonnet-20240620-v1:0", region_name="us-east-1")
