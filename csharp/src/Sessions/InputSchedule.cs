// Input scheduling (SRV-12 to SRV-16), as the Rust server's `input_schedule`: a client names the
// server tick its input is meant for, and the server buffers it until that tick runs. It is what
// the acked server half feeds the client's inputs into (ScheduledInputs, an IInputSink of
// Acked.cs), and where the header's `input_buffer` comes from.
//
// SRV-13: the window rejects, it never corrects; SRV-16: the current tick is derived by the caller,
// never counted here, so every method takes `current` as an argument. Ticks are compared without
// adding to them, so a window of any width (a hostile u64 from the params) never overflows.

using System.Collections.Generic;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>The accepting window, in ticks either side of the current one (SRV-12 to
    /// SRV-16).</summary>
    public struct InputWindow
    {
        /// <summary>How many ticks past its named tick an input is still accepted (it then runs next tick).</summary>
        public ulong MaxLate;

        /// <summary>How far ahead of the current tick an input may aim.</summary>
        public ulong MaxEarly;

        /// <summary>A window of <paramref name="maxLate"/> ticks behind and <paramref name="maxEarly"/> ahead.</summary>
        public InputWindow(ulong maxLate, ulong maxEarly)
        {
            MaxLate = maxLate;
            MaxEarly = maxEarly;
        }
    }

    /// <summary>What <see cref="InputSchedule{I}.Submit"/> decided (SRV-12 to SRV-16).</summary>
    public enum Submission
    {
        /// <summary>Buffered for the tick it names.</summary>
        Scheduled,
        /// <summary>Its tick had passed (within the window): it runs on the current tick.</summary>
        Late,
        /// <summary>Its tick is closed: dropped.</summary>
        TickClosed,
        /// <summary>It aims too far ahead: dropped.</summary>
        TooFarAhead,
    }

    /// <summary>
    /// One seat's buffered inputs and the counters that judge the window. The inbox is bounded in
    /// time by the window (nothing is buffered more than MaxEarly ticks ahead); the acked encoder
    /// bounds it in count (MaxBufferedInputs) before Submit.
    /// </summary>
    public sealed class InputSchedule<I>
    {
        // Execution ticks with inputs buffered, ascending, and each tick's inputs in arrival order.
        readonly List<ulong> ticks = new List<ulong>();
        readonly List<List<I>> inputs = new List<List<I>>();
        ulong? executedThrough;
        int count;

        /// <summary>Inputs buffered, scheduled plus late.</summary>
        public ulong Accepted;
        /// <summary>Inputs accepted after their tick had passed.</summary>
        public ulong LateCount;
        /// <summary>Inputs dropped for naming a tick already closed.</summary>
        public ulong RejectedClosed;
        /// <summary>Inputs dropped for naming a tick too far ahead.</summary>
        public ulong RejectedAhead;

        /// <summary>
        /// Offers an input naming <paramref name="tick"/>, judged against <paramref
        /// name="current"/> and <paramref name="window"/>: past current + MaxEarly it is dropped
        /// (too far ahead); before current - MaxLate dropped (SRV-13: dropped, never shifted into
        /// the window); before current it executes on current (late). SRV-14: an input never
        /// executes before a tick already executed for its seat.
        /// </summary>
        public Submission Submit(ulong tick, I input, ulong current, InputWindow window)
        {
            if (tick > current && tick - current > window.MaxEarly)
            {
                RejectedAhead++;
                return Submission.TooFarAhead;
            }
            bool late = tick < current;
            if (late && current - tick > window.MaxLate)
            {
                RejectedClosed++;
                return Submission.TickClosed;
            }
            ulong executeOn = late ? current : tick;
            if (executedThrough.HasValue && executedThrough.Value > executeOn)
            {
                executeOn = executedThrough.Value;
            }
            // Few distinct ticks are buffered (the window's width at most): a linear insertion.
            int i = ticks.Count;
            while (i > 0 && ticks[i - 1] > executeOn)
            {
                i--;
            }
            if (i > 0 && ticks[i - 1] == executeOn)
            {
                inputs[i - 1].Add(input);
            }
            else
            {
                ticks.Insert(i, executeOn);
                inputs.Insert(i, new List<I> { input });
            }
            count++;
            Accepted++;
            if (late)
            {
                LateCount++;
                return Submission.Late;
            }
            return Submission.Scheduled;
        }

        /// <summary>
        /// Whether an input has come due on tick <paramref name="current"/>, and the newest one in
        /// <paramref name="input"/> (level semantics, SRV-15: the newest due input wins): every due
        /// input leaves the schedule.
        /// </summary>
        public bool ExecuteDue(ulong current, out I input)
        {
            input = default(I);
            int n = 0;
            while (n < ticks.Count && ticks[n] <= current)
            {
                n++;
            }
            if (n == 0)
            {
                return false;
            }
            for (int k = 0; k < n; k++)
            {
                List<I> list = inputs[k];
                count -= list.Count;
                if (list.Count > 0)
                {
                    input = list[list.Count - 1];
                }
            }
            inputs.RemoveRange(0, n);
            ticks.RemoveRange(0, n);
            executedThrough = executedThrough.HasValue && executedThrough.Value > current ? executedThrough.Value : current;
            return true;
        }

        /// <summary>How many inputs are buffered.</summary>
        public int Pending
        {
            get { return count; }
        }
    }

    /// <summary>
    /// A client's inputs as the acked encoder hands them on: an InputSchedule judging each input by
    /// a window (SRV-12: the input executes on the server tick it names), as the Rust server's
    /// `acked::ScheduledInputs`.
    /// </summary>
    public sealed class ScheduledInputs<I> : IInputSink<I>
    {
        /// <summary>The schedule, for its counters and to execute it.</summary>
        public readonly InputSchedule<I> Schedule = new InputSchedule<I>();

        /// <summary>The window inputs are judged by.</summary>
        public readonly InputWindow Window;

        /// <summary>An empty schedule judging inputs by <paramref name="window"/>.</summary>
        public ScheduledInputs(InputWindow window)
        {
            Window = window;
        }

        /// <inheritdoc/>
        public void Submit(uint seq, uint tick, I input, ulong current)
        {
            Schedule.Submit(tick, input, current, Window);
        }

        /// <inheritdoc/>
        public int Pending()
        {
            return Schedule.Pending;
        }

        /// <summary>Whether an input is due on tick <paramref name="current"/>, the newest in
        /// <paramref name="input"/> (level semantics, SRV-12 to SRV-16).</summary>
        public bool ExecuteDue(ulong current, out I input)
        {
            return Schedule.ExecuteDue(current, out input);
        }
    }
}
