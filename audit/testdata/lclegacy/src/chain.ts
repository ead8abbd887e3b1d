import { ChatOpenAI } from 'langchain/chat_models/openai';
import { OpenAIEmbeddings } from 'langchain/embeddings/openai';
import { OpenAI } from 'langchain/llms/openai';
import { PromptTemplate } from 'langchain/prompts';
import { Document } from 'langchain/document';

export const model = new ChatOpenAI({ temperature: 0, modelName: 'gpt-4' });
export const embeddings = new OpenAIEmbeddings({});
export const writer = new OpenAI({ maxRetries: 2 });
// Not models: no AsyncCaller of their own.
export const prompt = new PromptTemplate({ template: '{q}', inputVariables: ['q'] });
export const doc = new Document({ pageContent: 'x' });
