// Drive the Vercel AI SDK at the loopback stub with its OpenTelemetry integration and export the
// spans with the real OTLP/HTTP JSON exporter: `node drive_ai_sdk.mjs CASE INTEGRATION`
// (INTEGRATION: `otel` for @ai-sdk/otel's OpenTelemetry, `legacy` for its LegacyOpenTelemetry).
// MODEL_URL is the stub's base URL, OTLP_URL the receiver's /v1/traces.
import { createOpenAI } from "@ai-sdk/openai";
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { generateText, registerTelemetry, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";

const [kase, integration] = process.argv.slice(2);
const PROMPT = "CANARY-PROMPT refund order 42 for /home/dev/shop customer";

const exporter = new OTLPTraceExporter({ url: process.env.OTLP_URL });
const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": "shop-agent" }),
  spanProcessors: [new BatchSpanProcessor({ exporter })],
});
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
trace.setGlobalTracerProvider(provider);
const tracer = provider.getTracer("shop-agent");
registerTelemetry(integration === "legacy" ? new LegacyOpenTelemetry({ tracer }) : new OpenTelemetry({ tracer }));

const model = createOpenAI({ baseURL: process.env.MODEL_URL, apiKey: "sk-fake" }).chat("gpt-4o-mini");
const controller = new AbortController();

const tools = {
  lookup_order: tool({
    description: "Look an order up.",
    inputSchema: z.object({ order_id: z.number() }),
    execute: async ({ order_id }) => {
      if (kase.endsWith("aborted-mid-stream")) {
        setTimeout(() => controller.abort(), 300); // while the model's next answer streams
      }
      return `CANARY-RESULT order ${order_id}: 2 items, paid`;
    },
  }),
  check_stock: tool({
    description: "Check the stock of an item.",
    inputSchema: z.object({ sku: z.string() }),
    execute: async ({ sku }) => `CANARY-STOCK ${sku}: 3 left`,
  }),
  charge_card: tool({
    description: "Charge the customer's card.",
    inputSchema: z.object({ order_id: z.number() }),
    execute: async ({ order_id }) => {
      throw new Error(`CANARY-ERROR card declined for order ${order_id}`);
    },
  }),
  refund_order: tool({
    description: "Refund an order (a person approves it first).",
    inputSchema: z.object({ order_id: z.number() }),
    needsApproval: true,
    execute: async ({ order_id }) => `CANARY-REFUNDED ${order_id}`,
  }),
  ask_billing_agent: tool({
    description: "Ask the billing agent.",
    inputSchema: z.object({ question: z.string() }),
    execute: async ({ question }) => {
      const billing = { lookup_order: tools.lookup_order };
      const telemetry = { ...TELEMETRY, functionId: "billing-agent" };
      const sub = { ...settings, tools: billing, prompt: question, experimental_telemetry: telemetry };
      return (await generateText(sub)).text;
    },
  }),
  wait_for_bank: tool({
    description: "Wait for the bank's answer.",
    inputSchema: z.object({ order_id: z.number() }),
    execute: async (_input, { abortSignal }) => {
      controller.abort();
      await new Promise((resolve) => setTimeout(resolve, 50));
      abortSignal?.throwIfAborted();
      return "CANARY-BANK late";
    },
  }),
};

const TELEMETRY = { isEnabled: true, functionId: "refund-agent", recordInputs: true, recordOutputs: true };
const settings = {
  model,
  tools,
  prompt: PROMPT,
  stopWhen: stepCountIs(5),
  maxRetries: 0,
  abortSignal: controller.signal,
  experimental_telemetry: TELEMETRY,
};

async function once(options) {
  if (kase.startsWith("stream")) {
    const result = streamText({ ...options, onError: () => {} });
    for await (const _part of result.fullStream) {
      // drain
    }
    return { text: await result.text, response: await result.response, content: await result.content };
  }
  return await generateText(options);
}

// A person denies the refund the model asks for: the run stops at the approval request, and
// a second run answers it (the AI SDK's tool approval flow).
async function denied() {
  const first = await once(settings);
  const request = first.content.find((part) => part.type === "tool-approval-request");
  const reply = { type: "tool-approval-response", approvalId: request.approvalId, approved: false, reason: "CANARY-NO not today" };
  const messages = [{ role: "user", content: PROMPT }, ...first.response.messages, { role: "tool", content: [reply] }];
  const { prompt: _prompt, ...rest } = settings;
  return (await once({ ...rest, messages })).text;
}

async function run() {
  if (kase.endsWith("approval-denied")) {
    return await denied();
  }
  if (kase.startsWith("stream")) {
    const result = streamText({ ...settings, onError: () => {} });
    for await (const _part of result.fullStream) {
      // drain
    }
    return await result.text;
  }
  return (await generateText(settings)).text;
}

try {
  console.log("answer:", await run());
} catch (error) {
  console.log("error:", error?.name);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
