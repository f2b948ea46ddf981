// Drive @openai/agents (JS) at the loopback OpenAI stub; its own OpenAITracingExporter uploads
// to the stub's /v1/traces/ingest: `node drive_agents.mjs SCENARIO` (MODEL_URL: the stub's /v1).
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { z } from 'zod';
import {
  Agent,
  BatchTraceProcessor,
  OpenAIChatCompletionsModel,
  OpenAITracingExporter,
  getGlobalTraceProvider,
  run,
  setDefaultOpenAIClient,
  setTraceProcessors,
  setTracingExportApiKey,
  tool,
  withTrace,
} from '@openai/agents';

const client = new OpenAI({ baseURL: process.env.MODEL_URL, apiKey: 'sk-loopback', maxRetries: 2 });
setDefaultOpenAIClient(client);
setTracingExportApiKey('sk-loopback');
const exporter = new OpenAITracingExporter({ endpoint: `${process.env.MODEL_URL}/traces/ingest` });
setTraceProcessors([new BatchTraceProcessor(exporter)]);
const chat = () => new OpenAIChatCompletionsModel(client, 'gpt-4.1-mini');

const readFile = tool({
  name: 'read_file',
  description: 'Read a file of the project.',
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => readFileSync(path, 'utf8'),
});
const runShell = tool({
  name: 'run_shell',
  description: 'Run a shell command; a non-zero exit throws.',
  parameters: z.object({ command: z.string() }),
  execute: async ({ command }) => execSync(command, { encoding: 'utf8' }),
});
const runTests = tool({
  name: 'run_tests',
  description: 'Run a slow test suite.',
  parameters: z.object({ suite: z.string() }),
  execute: async ({ suite }) => {
    await new Promise((done) => setTimeout(done, 3000));
    return `${suite}: passed`;
  },
});
const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an order (a person approves each refund).',
  parameters: z.object({ order_id: z.string(), amount: z.number() }),
  needsApproval: true,
  execute: async ({ order_id, amount }) => `refunded ${amount} on ${order_id} (CANARY-REFUND-OUT)`,
});
const noSecrets = {
  name: 'no_secrets',
  execute: async ({ agentOutput }) => ({
    outputInfo: {},
    tripwireTriggered: String(agentOutput).includes('SECRET'),
  }),
};

async function toolsParallel() {
  const agent = new Agent({ name: 'shop_dev', model: 'gpt-4.1', tools: [readFile, runShell] });
  await run(agent, 'CANARY-PROMPT check the shop');
}

async function streamedAbort() {
  const agent = new Agent({ name: 'shop_dev', model: 'gpt-4.1', tools: [readFile, runTests] });
  const controller = new AbortController();
  const result = await run(agent, 'CANARY-PROMPT run the tests', {
    stream: true,
    signal: controller.signal,
  });
  for await (const event of result) {
    if (event.type === 'run_item_stream_event' && event.item.rawItem?.name === 'run_tests') {
      setTimeout(() => controller.abort(), 500);
    }
  }
  await result.completed;
}

async function abortTool() {
  const agent = new Agent({ name: 'shop_dev', model: 'gpt-4.1', tools: [readFile, runTests] });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 1000);
  await run(agent, 'CANARY-PROMPT run the tests', { signal: controller.signal });
}

async function stopAtTool() {
  const agent = new Agent({
    name: 'shop_dev',
    model: 'gpt-4.1',
    tools: [readFile, runTests],
    toolUseBehavior: { stopAtToolNames: ['run_tests'] },
  });
  const result = await run(agent, 'CANARY-PROMPT run the tests', { stream: true });
  for await (const _ of result) {
    // drain
  }
  await result.completed;
}

async function handoffsAsTool() {
  const checker = new Agent({ name: 'policy_checker', model: chat(), tools: [readFile] });
  const refunds = new Agent({
    name: 'refunds',
    model: chat(),
    tools: [checker.asTool({ toolName: 'check_policy', toolDescription: 'Check the refund policy.' })],
  });
  const billing = new Agent({ name: 'billing', model: chat(), handoffs: [refunds] });
  const triage = new Agent({ name: 'triage', model: chat(), handoffs: [billing] });
  const result = await run(triage, 'CANARY-PROMPT I want my money back for order 42', {
    stream: true,
  });
  for await (const _ of result) {
    // drain
  }
  await result.completed;
}

async function guardrailThenApiError() {
  await withTrace('Shop checks', async () => {
    const agent = new Agent({ name: 'writer', model: 'gpt-4.1', outputGuardrails: [noSecrets] });
    try {
      await run(agent, 'CANARY-PROMPT write the config');
    } catch (error) {
      console.log(error.constructor.name);
    }
  });
  await run(new Agent({ name: 'writer', model: 'gpt-4.1' }), 'CANARY-PROMPT try again');
}

async function maxTurnsStreamed() {
  const agent = new Agent({ name: 'looper', model: 'gpt-4.1', tools: [readFile] });
  const result = await run(agent, 'CANARY-PROMPT read forever', { stream: true, maxTurns: 2 });
  for await (const _ of result) {
    // drain
  }
  await result.completed;
}

async function approvals() {
  const agent = new Agent({ name: 'refunder', model: 'gpt-4.1', tools: [issueRefund] });
  const first = await run(agent, 'CANARY-PROMPT refund orders 42 and 43');
  await getGlobalTraceProvider().forceFlush();
  for (const item of first.interruptions) {
    if (String(item.rawItem.arguments).includes('42')) first.state.approve(item);
    else first.state.reject(item);
  }
  await run(agent, first.state);
}

const SCENARIOS = {
  'tools-parallel': toolsParallel,
  'streamed-abort': streamedAbort,
  'abort-tool': abortTool,
  'stop-at-tool': stopAtTool,
  'handoffs-as-tool': handoffsAsTool,
  'guardrail-then-api-error': guardrailThenApiError,
  'max-turns-streamed': maxTurnsStreamed,
  approvals,
};

try {
  await SCENARIOS[process.argv[2]]();
} catch (error) {
  console.log(`${process.argv[2]}: ${error.constructor.name}`);
}
await getGlobalTraceProvider().forceFlush();
await getGlobalTraceProvider().shutdown();
