/**
 * What a capability probe found out about a model on an endpoint (`bridle probe`, `model/probe`):
 * pure zod, shared by the core (which probes and keeps reports in capabilities.json) and the
 * bridge contract (which shows them as a card in settings and next to the model in the chat).
 */
import { z } from 'zod'

/** How one tool-call test went: calls came structured, written as text, not at all, or refused. */
export const CallOutcome = z.enum(['structured', 'text', 'none', 'refused', 'failed', 'skipped'])
export type CallOutcome = z.infer<typeof CallOutcome>

export const ProbeReport = z.object({
  baseUrl: z.string(),
  model: z.string(),
  /** `ollama`, `llama.cpp`, `lm-studio`, `vllm`, `deepseek`, `openai` or `unknown`. */
  kind: z.string(),
  serverVersion: z.string().optional(),
  probedAt: z.number().int().nonnegative(),
  durationMs: z.number().int().nonnegative(),
  /** The API the probe spoke (the one Bridle uses for this server). */
  api: z.enum(['openai', 'ollama']),
  toolCalls: z.object({
    streamed: CallOutcome,
    nonStreamed: CallOutcome,
    /** With tools described in the prompt instead (for a server that refused or ignored them). */
    asText: CallOutcome,
    /** The format the model wrote its calls in, when it wrote them as text. */
    textFormat: z.string().optional(),
    /** The mode Bridle picks from this. */
    chosen: z.enum(['native', 'native-nonstream', 'text']),
    /** The server's own words, when it refused. */
    serverSaid: z.string().optional(),
  }),
  /** Where reasoning arrived: a field, `<think>` tags, only `</think>`, or not at all. */
  reasoning: z.enum([
    'reasoning_content',
    'reasoning',
    'thinking',
    'think-tags',
    'unopened-think',
    'none',
  ]),
  streamOptions: z.enum(['accepted', 'refused', 'not-applicable']),
  context: z.object({
    /** The window the server says it runs (or a default Bridle assumes), and where that comes from. */
    window: z.number().int().positive().optional(),
    windowSource: z.enum(['server', 'default', 'advertised']).optional(),
    /** What the model was trained for, when the server says. */
    trained: z.number().int().positive().optional(),
    /** The long prompt's size (estimated) and what the server counted of it. */
    testedWith: z.number().int().nonnegative().optional(),
    reported: z.number().int().nonnegative().optional(),
    /** `fits`: counted whole; `cut`: the server dropped its start; `refused`: too long, it said. */
    verdict: z.enum(['fits', 'cut', 'refused', 'untested']),
    /** The window the test shows the server honours. */
    honoured: z.number().int().positive().optional(),
    /** Whether the model could repeat the word planted at the head of the long prompt. */
    sawHead: z.boolean().optional(),
    serverSaid: z.string().optional(),
  }),
  /** Anything else worth a line on the card (what failed, what to change). */
  notes: z.array(z.string()),
})
export type ProbeReport = z.infer<typeof ProbeReport>
