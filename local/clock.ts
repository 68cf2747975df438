/**
 * The local runtime's one clock: the domain's `now`, the Scheduler stand-in's firing times, the
 * gateway's idle and age limits and the token `exp` check all read it. `systemClock` is the wall
 * clock; a `steppedClock` runs with it and jumps forward when a test calls `advance`, firing at once
 * what became due, so a five-minute grace takes no five minutes.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Call `run` once this clock reaches `time`; the returned function cancels it. */
  at(time: number, run: () => unknown): () => void;
}

/** setTimeout takes at most this many milliseconds. */
const LONGEST_TIMEOUT = 2 ** 31 - 1;

interface Alarm {
  time: number;
  run: () => unknown;
  timeout?: NodeJS.Timeout;
}

function alarms(now: () => number) {
  const pending = new Set<Alarm>();
  const arm = (alarm: Alarm) => {
    clearTimeout(alarm.timeout);
    const wait = alarm.time - now();
    alarm.timeout = setTimeout(() => (wait > LONGEST_TIMEOUT ? arm(alarm) : ring(alarm)), Math.max(0, Math.min(wait, LONGEST_TIMEOUT)));
  };
  const ring = (alarm: Alarm) => {
    clearTimeout(alarm.timeout);
    if (!pending.delete(alarm)) return undefined;
    return alarm.run();
  };
  return {
    at(time: number, run: () => unknown) {
      const alarm: Alarm = { time, run };
      pending.add(alarm);
      arm(alarm);
      return () => {
        clearTimeout(alarm.timeout);
        pending.delete(alarm);
      };
    },
    /** Ring what is due now, earliest first (waiting for each), and re-arm the rest for the new time. */
    async catchUp() {
      for (;;) {
        const due = [...pending].filter((a) => a.time <= now()).sort((a, b) => a.time - b.time)[0];
        if (!due) break;
        await ring(due);
      }
      for (const alarm of pending) arm(alarm);
    },
  };
}

export const systemClock: Clock = {
  now: Date.now,
  at: alarms(Date.now).at,
};

export interface SteppedClock extends Clock {
  /** Jump `ms` forward; resolves once everything that fell due has run. */
  advance(ms: number): Promise<void>;
}

export function steppedClock(): SteppedClock {
  let offset = 0;
  const now = () => Date.now() + offset;
  const pending = alarms(now);
  return {
    now,
    at: pending.at,
    async advance(ms) {
      if (!(ms >= 0)) throw new Error("a clock only moves forward");
      offset += ms;
      await pending.catchUp();
    },
  };
}
