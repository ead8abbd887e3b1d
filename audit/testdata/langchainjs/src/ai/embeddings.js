const { GoogleGenerativeAIEmbeddings } = require("@langchain/google-genai");

const embeddings = new GoogleGenerativeAIEmbeddings({ model: "text-embedding-004" });

module.exports = { embeddings };
