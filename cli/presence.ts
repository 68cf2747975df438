/**
 * Whether the agent that waits is still there. When it goes (a stdio agent closes its stdin or dies,
 * a demo stops early), every wait it left cancels its elicitation, so no human answers a card nobody
 * waits for; without this the card would stay until the reconnect grace resolved it `runner_gone`.
 */
export class AgentPresence {
  private readonly left = new AbortController();
  private readonly waiting = new Set<Promise<unknown>>();
  get signal(): AbortSignal {
    return this.left.signal;
  }
  /** A wait to withdraw when the agent goes. */
  track<T>(wait: Promise<T>): Promise<T> {
    const settled = wait.then(
      () => undefined,
      () => undefined,
    );
    this.waiting.add(settled);
    void settled.then(() => this.waiting.delete(settled));
    return wait;
  }
  /** The agent is gone: cancel every wait, and give their cancels up to `withinMs` to land. */
  async gone(withinMs = 5_000): Promise<void> {
    this.left.abort();
    const pause = new Promise((done) => setTimeout(done, withinMs).unref());
    await Promise.race([Promise.all(this.waiting), pause]);
  }
}
