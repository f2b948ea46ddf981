// Drive LangGraph.js agents on ChatOpenAI (the loopback OpenAI stub) traced by langsmith-js
// into the loopback LangSmith stub: `node drive_langgraph.mjs CASE` (MODEL_URL: the stub's /v1;
// LANGSMITH_TRACING, LANGSMITH_ENDPOINT set by the caller).
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver, interrupt } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

const PROMPT = 'CANARY-PROMPT refund order 42 for /home/dev/shop customer';
const model = (extra = {}) =>
  new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'sk-fake',
    configuration: { baseURL: process.env.MODEL_URL },
    maxRetries: 0,
    ...extra,
  });

const lookupOrder = tool(async ({ order_id }) => `CANARY-RESULT order ${order_id}: 2 items, paid`, {
  name: 'lookup_order',
  description: 'Look an order up.',
  schema: z.object({ order_id: z.number() }),
});
const checkStock = tool(async ({ sku }) => `CANARY-STOCK ${sku}: 3 left`, {
  name: 'check_stock',
  description: 'Check the stock of an item.',
  schema: z.object({ sku: z.string() }),
});
const chargeCard = tool(
  async ({ order_id }) => {
    throw new Error(`CANARY-ERROR card declined for order ${order_id}`);
  },
  { name: 'charge_card', description: "Charge the customer's card.", schema: z.object({ order_id: z.number() }) },
);
const refund = tool(
  async ({ order_id }) => {
    const answer = interrupt({ question: `CANARY-ASK refund order ${order_id}?` });
    return `CANARY-REFUND ${order_id}: ${answer}`;
  },
  { name: 'refund', description: 'Refund an order; a person approves it first.', schema: z.object({ order_id: z.number() }) },
);
const askBilling = tool(
  async ({ question }) => {
    const inner = createReactAgent({ llm: model(), tools: [lookupOrder], name: 'billing' });
    const result = await inner.invoke({ messages: [{ role: 'user', content: question }] });
    return String(result.messages.at(-1).content);
  },
  { name: 'ask_billing', description: 'Ask the billing sub-agent.', schema: z.object({ question: z.string() }) },
);
const runTests = tool(
  async ({ suite }) => {
    await new Promise((done) => setTimeout(done, 3000));
    return `${suite}: passed`;
  },
  { name: 'run_tests', description: 'Run a slow test suite.', schema: z.object({ suite: z.string() }) },
);
const TOOLS = [lookupOrder, checkStock, chargeCard, refund, askBilling, runTests];
const messages = { messages: [{ role: 'user', content: PROMPT }] };

async function main(name) {
  if (name === 'interrupt') {
    const agent = createReactAgent({ llm: model(), tools: TOOLS, checkpointSaver: new MemorySaver() });
    const config = { configurable: { thread_id: 'thread-1' } };
    await agent.invoke(messages, config);
    await agent.invoke(new Command({ resume: 'CANARY-APPROVED yes' }), config);
  } else if (name === 'abort') {
    const agent = createReactAgent({ llm: model(), tools: TOOLS });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1000);
    await agent.invoke(messages, { signal: controller.signal });
  } else if (name === 'timeout') {
    const agent = createReactAgent({ llm: model(), tools: TOOLS });
    await agent.invoke(messages, { timeout: 1000 });
  } else if (name === 'stream') {
    const agent = createReactAgent({ llm: model({ streaming: true }), tools: TOOLS });
    for await (const _ of await agent.stream(messages, { streamMode: 'messages' })) {
      // drain
    }
  } else {
    const agent = createReactAgent({ llm: model(), tools: TOOLS });
    await agent.invoke(messages);
  }
}

try {
  await main(process.argv[2]);
} catch (error) {
  console.log(`${process.argv[2]}: run raised ${error.constructor.name}`);
}
await awaitAllCallbacks();
await new Promise((done) => setTimeout(done, 3000)); // the client's batches go out
