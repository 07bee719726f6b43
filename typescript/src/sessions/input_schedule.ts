/**
 * Input scheduling (SRV-12 to SRV-16), as the Rust server's `input_schedule`: a client names the
 * server tick its input is meant for, and the server buffers it until that tick runs. It is what
 * the acked server half feeds the client's inputs into ({@link ScheduledInputs}, an {@link
 * InputSink} of `acked.ts`), and where the header's `input_buffer` comes from.
 *
 * SRV-13: the window rejects, it never corrects; SRV-16: the current tick is derived by the caller,
 * never counted here, so every method takes `current` as an argument.
 */

import type { InputSink } from "./acked.js";

/** The accepting window, in ticks either side of the current one (SRV-12 to SRV-16). */
export interface InputWindow {
  /** How many ticks past its named tick an input is still accepted (it then runs next tick). */
  readonly maxLate: number;
  /** How far ahead of the current tick an input may aim. */
  readonly maxEarly: number;
}

/** What {@link InputSchedule.submit} decided (SRV-12 to SRV-16). */
export type Submission = "scheduled" | "late" | "tick_closed" | "too_far_ahead";

/**
 * One seat's buffered inputs and the counters that judge the window. The inbox is bounded in
 * time by the window (nothing is buffered more than `maxEarly` ticks ahead); the acked encoder
 * bounds it in count (MAX_BUFFERED_INPUTS) before `submit`.
 */
export class InputSchedule<I> {
  /** Execution ticks with inputs buffered, ascending, and each tick's inputs in arrival order. */
  private ticks: number[] = [];
  private inputs: I[][] = [];
  private executedThrough: number | undefined = undefined;
  private count = 0;
  /** Inputs buffered, scheduled plus late. */
  accepted = 0;
  /** Inputs accepted after their tick had passed. */
  late = 0;
  /** Inputs dropped for naming a tick already closed. */
  rejectedClosed = 0;
  /** Inputs dropped for naming a tick too far ahead. */
  rejectedAhead = 0;

  /**
   * Offers an input naming `tick`, judged against `current` and `window`: past `current + maxEarly`
   * it is dropped (`too_far_ahead`); before `current - maxLate` dropped (`tick_closed`: SRV-13,
   * dropped, never shifted into the window); before `current` it executes on `current` (`late`).
   * SRV-14: an input never executes before a tick already executed for its seat.
   */
  submit(tick: number, input: I, current: number, window: InputWindow): Submission {
    if (tick > current + window.maxEarly) {
      this.rejectedAhead += 1;
      return "too_far_ahead";
    }
    const late = tick < current;
    if (late && current - tick > window.maxLate) {
      this.rejectedClosed += 1;
      return "tick_closed";
    }
    const namedOrNext = late ? current : tick;
    const executeOn =
      this.executedThrough === undefined
        ? namedOrNext
        : Math.max(namedOrNext, this.executedThrough);
    // Few distinct ticks are buffered (the window's width at most): a linear insertion.
    let i = this.ticks.length;
    while (i > 0 && this.ticks[i - 1]! > executeOn) {
      i -= 1;
    }
    if (i > 0 && this.ticks[i - 1] === executeOn) {
      this.inputs[i - 1]!.push(input);
    } else {
      this.ticks.splice(i, 0, executeOn);
      this.inputs.splice(i, 0, [input]);
    }
    this.count += 1;
    this.accepted += 1;
    if (late) {
      this.late += 1;
      return "late";
    }
    return "scheduled";
  }

  /**
   * The input to apply on tick `current`, if any has come due (level semantics, SRV-15: the newest
   * due input wins): every due input leaves the schedule.
   */
  executeDue(current: number): I | undefined {
    let n = 0;
    while (n < this.ticks.length && this.ticks[n]! <= current) {
      n += 1;
    }
    if (n === 0) {
      return undefined;
    }
    const due = this.inputs.splice(0, n);
    this.ticks.splice(0, n);
    this.executedThrough =
      this.executedThrough === undefined ? current : Math.max(this.executedThrough, current);
    let last: I | undefined;
    for (const list of due) {
      this.count -= list.length;
      last = list[list.length - 1] ?? last;
    }
    return last;
  }

  /** How many inputs are buffered. */
  pending(): number {
    return this.count;
  }
}

/**
 * A client's inputs as the acked encoder hands them on: an {@link InputSchedule} judging each input
 * by a window (SRV-12: the input executes on the server tick it names), as the Rust server's
 * `acked::ScheduledInputs`.
 */
export class ScheduledInputs<I> implements InputSink<I> {
  /** The schedule, for its counters and to execute it. */
  readonly schedule = new InputSchedule<I>();
  /** The window inputs are judged by. */
  readonly window: InputWindow;

  /** An empty schedule judging inputs by `window`. */
  constructor(window: InputWindow) {
    this.window = window;
  }

  /** Offers input `seq` (aimed at `tick`) to the schedule, judged against tick `current`. */
  submit(_seq: number, tick: number, input: I, current: number): void {
    this.schedule.submit(tick, input, current, this.window);
  }

  /** How many inputs are buffered (the acked header's `input_buffer`, saturated at 255). */
  pending(): number {
    return this.schedule.pending();
  }

  /** The input to apply on tick `current` (level semantics, SRV-12 to SRV-16). */
  executeDue(current: number): I | undefined {
    return this.schedule.executeDue(current);
  }
}
