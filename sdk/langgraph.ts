/**
 * LangGraph.js's `interrupt()` answered by a human in Tollgate: each pending interrupt of a thread
 * becomes an elicitation (the interrupt's value as the message or the form), and the graph resumes
 * with `Command({ resume })` carrying the verdict. The elicitation id comes from the thread and the
 * interrupt's id, so a runner that restarts on the same checkpointer joins the waits it had.
 */
import { Command, type Interrupt } from "@langchain/langgraph";
import { idOf } from "./ids.js";
import type { FormParams, TollgateRunner, Verdict } from "./runner.js";

export interface InterruptOptions {
  runner: TollgateRunner;
  /** The Tollgate session the cards are raised in (registered on the runner). */
  sessionId: string;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/** What a node gets back from `interrupt()`: the verdict (`action`, the form's `content`, the human's `message`). */
export type InterruptVerdict = Pick<Verdict, "action" | "content" | "reason" | "message">;

/** The part of a compiled graph the adapter uses; a `StateGraph(...).compile({ checkpointer })` is one. */
export interface InterruptibleGraph {
  invoke(input: unknown, config: { configurable: { thread_id: string } }): Promise<unknown>;
  getState(config: { configurable: { thread_id: string } }): Promise<{ tasks: readonly { interrupts?: readonly Interrupt[] }[] }>;
}

type ThreadConfig = { configurable: { thread_id: string } };

/** An interrupt's value as the card: a string is the message; `{message, requestedSchema?}` is used as it is. */
export function interruptParams(value: unknown): FormParams {
  if (typeof value === "string") return { message: value };
  const v = value as Partial<FormParams> | undefined;
  if (v && typeof v.message === "string") return { message: v.message, ...(v.requestedSchema ? { requestedSchema: v.requestedSchema } : {}) };
  return { message: JSON.stringify(value) ?? "The graph asks for approval." };
}

const resumeValue = (verdict: Verdict): InterruptVerdict => {
  const { action, content, reason, message } = verdict;
  return { action, reason, ...(content ? { content } : {}), ...(message ? { message } : {}) };
};

async function pendingInterrupts(graph: InterruptibleGraph, config: ThreadConfig): Promise<Interrupt[]> {
  const state = await graph.getState(config);
  return state.tasks.flatMap((task) => [...(task.interrupts ?? [])]);
}

/** Ask a human about every pending interrupt of the thread, then resume it with their verdicts. */
async function answerAndResume(graph: InterruptibleGraph, config: ThreadConfig, interrupts: Interrupt[], o: InterruptOptions): Promise<unknown> {
  const thread = config.configurable.thread_id;
  const answers = await Promise.all(
    interrupts.map(async (item, index) => {
      const id = item.id ?? String(index);
      const elicitationId = await idOf("langgraph:", `${thread}:${id}`);
      const verdict = await o.runner.elicit({ sessionId: o.sessionId, elicitationId, params: interruptParams(item.value), timeoutSeconds: o.timeoutSeconds, signal: o.signal });
      return [id, resumeValue(verdict)] as const;
    }),
  );
  // One interrupt resumes with its value; several with a map from interrupt id to value.
  const resume = answers.length === 1 && !interrupts[0]!.id ? answers[0]![1] : Object.fromEntries(answers);
  return graph.invoke(new Command({ resume }), config);
}

async function drain(graph: InterruptibleGraph, config: ThreadConfig, o: InterruptOptions, result: unknown): Promise<unknown> {
  for (let pending = await pendingInterrupts(graph, config); pending.length > 0; pending = await pendingInterrupts(graph, config)) {
    result = await answerAndResume(graph, config, pending, o);
  }
  return result;
}

/** Run the graph on a thread to its end, asking a human in Tollgate at every `interrupt()`; the graph's last result. */
export async function runWithInterrupts(graph: InterruptibleGraph, input: unknown, config: ThreadConfig, o: InterruptOptions): Promise<unknown> {
  return drain(graph, config, o, await graph.invoke(input, config));
}

/**
 * Go on with a thread that waits on interrupts (a runner that restarted on the same checkpointer):
 * its waits join their elicitations. The graph's last result, `undefined` when nothing was pending.
 */
export async function resumeInterrupts(graph: InterruptibleGraph, config: ThreadConfig, o: InterruptOptions): Promise<unknown> {
  return drain(graph, config, o, undefined);
}
