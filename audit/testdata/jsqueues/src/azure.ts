// Shapes from Azure/azure-sdk-for-js sdk/ai/ai-inference-rest samples:
// ModelClient is called without new; retryOptions narrows the pipeline.
import ModelClient from "@azure-rest/ai-inference";
import { AzureKeyCredential } from "@azure/core-auth";

const endpoint = process.env.AZURE_INFERENCE_ENDPOINT ?? "";
const credential = new AzureKeyCredential(process.env.AZURE_INFERENCE_KEY ?? "");

export const client = ModelClient(endpoint, credential);
export const patient = ModelClient(endpoint, credential, { retryOptions: { maxRetries: 6 } });
