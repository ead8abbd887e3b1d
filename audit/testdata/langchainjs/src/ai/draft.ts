import { ChatOpenAI } from "@langchain/openai";
import { ChatPromptTemplate } from "@langchain/core/prompts";

const prompt = ChatPromptTemplate.fromMessages([["system", "Draft a reply"]]);
export const drafter = prompt.pipe(new ChatOpenAI({ model: "gpt-4o-mini", maxRetries: 1 }));
