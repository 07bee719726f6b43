// The one sans-IO shape (GEN-4) of every session half, as the Rust codec's `session::SessionHalf`:
// input goes in with the time as an argument (HandleFrame for a peer's frame, HandleTick for a tick
// passing), output is returned (a report of what the frame did) or polled (PollTransmit, until
// null). Nothing here opens a socket or reads a clock: a Unity MonoBehaviour's Update or a Godot
// node's _Process owns both.
//
// Hostile peers: a client answers every frame, so a server sending faster than the caller polls
// would grow the queue without end; the Outbox holds at most MAX_QUEUED frames and drops the
// oldest unreliable one past it, as the lossy transport may drop it.

using System;
using System.Collections.Generic;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>When an input happens: the server tick and milliseconds on the session's own clock.</summary>
    public struct Now
    {
        /// <summary>The server tick: for a tick the tick passing, for a frame the newest tick passed.</summary>
        public ulong Tick;
        /// <summary>Milliseconds on the session's clock.</summary>
        public ulong Ms;

        /// <summary>The moment of tick <paramref name="tick"/> at <paramref name="ms"/> milliseconds.</summary>
        public Now(ulong tick, ulong ms)
        {
            Tick = tick;
            Ms = ms;
        }
    }

    /// <summary>A frame a half wants sent.</summary>
    public sealed class Transmit
    {
        /// <summary>The frame's name in the spec (<c>acked</c>, <c>ack</c>, <c>datagram_ack</c>, ...).</summary>
        public string Frame;
        /// <summary>Its bytes.</summary>
        public byte[] Bytes;
        /// <summary>Whether it goes on the reliable, ordered channel.</summary>
        public bool Reliable;

        /// <summary>Frame <paramref name="frame"/> of <paramref name="bytes"/>, on the reliable channel when <paramref name="reliable"/>.</summary>
        public Transmit(string frame, byte[] bytes, bool reliable)
        {
            Frame = frame;
            Bytes = bytes;
            Reliable = reliable;
        }
    }

    /// <summary>
    /// A half's refusal of an input, as the Rust codec's <c>SessionError</c> variants.
    /// <see cref="Kind"/> is one of "decode", "unexpected_frame", "encode", "limit", "world",
    /// "tick_range", "no_world"; the codec's own error (a DecodeError, an EncodeError) is the
    /// inner exception where there is one.
    /// </summary>
    public sealed class SessionError : Exception
    {
        /// <summary>The decoder refused the peer's frame (the inner exception is its DecodeError).</summary>
        public const string Decode = "decode";
        /// <summary>A frame this half does not take.</summary>
        public const string UnexpectedFrame = "unexpected_frame";
        /// <summary>The encoder refused what the half made (the inner exception is its EncodeError).</summary>
        public const string Encode = "encode";
        /// <summary>A documented limit was passed.</summary>
        public const string Limit = "limit";
        /// <summary>The world handed to a server half is not one it can send.</summary>
        public const string World = "world";
        /// <summary>A tick beyond the wire's u32.</summary>
        public const string TickRange = "tick_range";
        /// <summary>A server half was ticked without a world.</summary>
        public const string NoWorld = "no_world";

        /// <summary>What went wrong: one of the constants of this class.</summary>
        public string Kind { get; private set; }

        /// <summary>A refusal of kind <paramref name="kind"/>, caused by <paramref name="inner"/> when not null.</summary>
        public SessionError(string kind, string message, Exception inner = null) : base(message, inner)
        {
            Kind = kind;
        }
    }

    /// <summary>One half of a session, client or server: the one shape every machine is driven through.</summary>
    /// <typeparam name="TTick">What a tick passing brings (a client's input, a server's world).</typeparam>
    /// <typeparam name="TReport">What a peer's frame did.</typeparam>
    public interface ISessionHalf<TTick, TReport>
    {
        /// <summary>The peer's frame <paramref name="frame"/> (its name in the spec) arrives at <paramref name="now"/>; throws a SessionError.</summary>
        TReport HandleFrame(Now now, string frame, byte[] bytes);

        /// <summary>Tick <c>now.Tick</c> passes with <paramref name="input"/>; what the half sends because of it is polled.</summary>
        void HandleTick(Now now, TTick input);

        /// <summary>The next frame to send, in order; null when there is none (until the next input).</summary>
        Transmit PollTransmit();
    }

    /// <summary>The frames a half has yet to hand out, at most <see cref="MaxQueued"/> unreliable ones (GEN-8).</summary>
    public sealed class Outbox
    {
        /// <summary>
        /// The most frames a half holds for PollTransmit. Past it the oldest unreliable frame is
        /// dropped, as the lossy transport may drop it. Reliable frames come from the half's own
        /// ticks and are never dropped.
        /// </summary>
        public const int MaxQueued = 1024;

        // A ring would make the drop from the middle awkward; a list with a moving head keeps
        // the common case (push, poll, empty) free of copies and reuses its array once warm.
        readonly List<Transmit> queue = new List<Transmit>();
        int head;

        /// <summary>Queues <paramref name="t"/>, dropping the oldest unreliable frame first when the queue is full.</summary>
        public void Push(Transmit t)
        {
            if (queue.Count - head >= MaxQueued)
            {
                for (int i = head; i < queue.Count; i++)
                {
                    if (!queue[i].Reliable)
                    {
                        queue.RemoveAt(i);
                        break;
                    }
                }
            }
            queue.Add(t);
        }

        /// <summary>The oldest queued frame, removed; null when there is none.</summary>
        public Transmit Poll()
        {
            if (head >= queue.Count)
            {
                return null;
            }
            Transmit t = queue[head];
            queue[head] = null;
            head++;
            if (head == queue.Count)
            {
                queue.Clear();
                head = 0;
            }
            return t;
        }

        /// <summary>How many frames are queued.</summary>
        public int Count
        {
            get { return queue.Count - head; }
        }
    }

    /// <summary>Helpers every half shares.</summary>
    public static class Session
    {
        /// <summary>The most frames a half holds for PollTransmit (<see cref="Outbox.MaxQueued"/>).</summary>
        public const int MaxQueued = Outbox.MaxQueued;

        /// <summary><paramref name="tick"/> as the wire's u32 tick; throws a SessionError (<c>tick_range</c>) past 2^32 - 1.</summary>
        public static uint Tick32(ulong tick)
        {
            if (tick > uint.MaxValue)
            {
                throw new SessionError(SessionError.TickRange, "ticks are u32 on the wire");
            }
            return (uint)tick;
        }

        /// <summary>Throws a SessionError (<c>unexpected_frame</c>) unless <paramref name="frame"/> is <paramref name="name"/>.</summary>
        public static void ExpectFrame(string frame, string name)
        {
            if (frame != name)
            {
                throw new SessionError(SessionError.UnexpectedFrame, "unexpected frame `" + frame + "`");
            }
        }
    }

    /// <summary>
    /// 32-bit FNV-1a (offset basis 2166136261, prime 16777619): CHECK-1, the hash of the state
    /// check and of every session's state hash. A hash continues a running one, so that a state's
    /// canonical bytes can be hashed in pieces without being concatenated first.
    /// </summary>
    public static class Fnv
    {
        /// <summary>The offset basis, the hash of no bytes.</summary>
        public const uint Basis = 2166136261;

        /// <summary>The prime.</summary>
        public const uint Prime = 16777619;

        /// <summary><paramref name="hash"/> continued over bytes [<paramref name="start"/>, <paramref name="start"/> + <paramref name="count"/>) of <paramref name="bytes"/>.</summary>
        public static uint Fnv1a32(byte[] bytes, int start, int count, uint hash = Basis)
        {
            unchecked
            {
                int end = start + count;
                for (int i = start; i < end; i++)
                {
                    hash ^= bytes[i];
                    hash *= Prime;
                }
            }
            return hash;
        }

        /// <summary><paramref name="hash"/> continued over all of <paramref name="bytes"/>.</summary>
        public static uint Fnv1a32(byte[] bytes, uint hash = Basis)
        {
            return Fnv1a32(bytes, 0, bytes.Length, hash);
        }

        /// <summary><paramref name="hash"/> continued over one byte.</summary>
        public static uint Byte(uint hash, byte b)
        {
            unchecked
            {
                return (hash ^ b) * Prime;
            }
        }
    }
}
