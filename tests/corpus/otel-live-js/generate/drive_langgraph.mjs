// Drive a LangGraph.js react agent (ChatOpenAI at the loopback stub), traced by OpenInference's
// LangChain.js instrumentation, and export the spans with the real OTLP/HTTP JSON exporter:
// `node drive_langgraph.mjs CASE`. MODEL_URL is the stub's base URL, OTLP_URL the receiver's.
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain";
import * as CallbackManagerModule from "@langchain/core/callbacks/manager";
import { tool } from "@langchain/core/tools";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { z } from "zod";

const PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer";

const exporter = new OTLPTraceExporter({ url: process.env.OTLP_URL });
const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": "shop-agent" }),
  spanProcessors: [new BatchSpanProcessor({ exporter })],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
new LangChainInstrumentation({ tracerProvider: provider }).manuallyInstrument(CallbackManagerModule);

const order = z.object({ order_id: z.number() });
const tools = [
  tool(async ({ order_id }) => `CANARY-RESULT order ${order_id}: 2 items, paid`, {
    name: "lookup_order",
    description: "Look an order up.",
    schema: order,
  }),
  tool(async ({ sku }) => `CANARY-STOCK ${sku}: 3 left`, {
    name: "check_stock",
    description: "Check the stock of an item.",
    schema: z.object({ sku: z.string() }),
  }),
  tool(
    async ({ order_id }) => {
      throw new Error(`CANARY-ERROR card declined for order ${order_id}`);
    },
    { name: "charge_card", description: "Charge the customer's card.", schema: order },
  ),
];

const model = new ChatOpenAI({
  model: "gpt-4o-mini",
  apiKey: "sk-fake",
  maxRetries: 0,
  configuration: { baseURL: process.env.MODEL_URL },
});
const agent = createReactAgent({ llm: model, tools, name: "support_agent" });

try {
  const state = await agent.invoke({ messages: [{ role: "user", content: PROMPT }] });
  console.log("answer:", state.messages.at(-1).content);
} catch (error) {
  console.log("error:", error?.name);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
