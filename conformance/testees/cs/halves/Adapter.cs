// What every adapter of halves/ shares (a review finding: each repeated it): the runtime's half
// it drives, `take` as that half's frames drained in order, and `state_hash` as none unless the
// adapter says what its half's state hash is (the clients do). An adapter then holds only what
// is its own: reading its params, its world ops and its reports.

using System.Collections.Generic;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>
/// An adapter of a session half <typeparamref name="THalf"/> (ticked with
/// <typeparamref name="TTick"/>, reporting a frame as <typeparamref name="TReport"/>) to the
/// testee protocol's session ops.
/// </summary>
abstract class Adapter<THalf, TTick, TReport> : ITesteeSession
    where THalf : ISessionHalf<TTick, TReport>
{
    /// <summary>The runtime's half this adapter translates the protocol's JSON for.</summary>
    protected readonly THalf half;

    /// <summary>An adapter driving <paramref name="driven"/>.</summary>
    protected Adapter(THalf driven)
    {
        half = driven;
    }

    /// <inheritdoc/>
    public abstract void Advance(ulong tick, ulong nowMs, List<JsonValue> ops);

    /// <inheritdoc/>
    public abstract void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report);

    /// <summary>Everything the half has to send now, in order (Sessions.Drain).</summary>
    public List<Transmit> Take()
    {
        return Sessions.Drain(half);
    }

    /// <summary>None: a half with a state hash (a client's) overrides it.</summary>
    public virtual uint? StateHash()
    {
        return null;
    }
}
