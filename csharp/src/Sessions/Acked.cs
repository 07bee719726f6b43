// Acked snapshots (`docs/spec/acked.md`), both halves, generic over an IAckedSchema as the Rust
// codec's `acked` module: the client's AckedDecoder and its kind 7 AckWriter, the server's
// per-client AckedEncoder (SENT_RING frames, a base or a keyframe, events, the check,
// RELIABLE_ABOVE), and AckedDelta, what turns one state into another. Frames, bytes, checks and
// state hashes are bit for bit the Rust machines' (conformance's stream vectors hold every language
// to the same bytes).
//
// The schema says what a record is, how two differ as a change, how a change applies, a
// record's canonical bytes and how frames are written and read; the reference protocol's is
// reference/Acked.cs, beside the generated codec. Nothing here uses a generated type.
//
// A coded schema (ICodedSchema, kind 13, docs/spec/coded.md) adds the coded profile's session
// rules: the encoder names an older snapshot, the newest acknowledged kept frame before the base
// within 255 ticks (CODE-2), and both halves write and read each frame against the records of
// its base and older snapshot (ICodedBasis); the decoder drops a frame whose base or older
// snapshot it does not hold before reading its changes (CODE-3).
//
// Hostile peers: the decoder never throws on a peer's bytes and never holds more than HELD_RING
// states or 65,536 entities (a u16's ids); the encoder keeps SENT_RING frames, the events of
// EVENT_TTL frames and MaxBufferedInputs inputs, whatever the acks say.
//
// Sans-IO: ticks are arguments; nothing reads a clock or opens a socket.

using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>
    /// An acked frame (kind 6) in schema-independent terms: the header is ACK-2's, the changes and
    /// the events are the schema's. A decoder reads every frame into the same one.
    /// </summary>
    public sealed class AckedFrame<C, E>
    {
        /// <summary>The server tick this frame describes.</summary>
        public uint Tick;
        /// <summary>The tick of the acknowledged frame it applies onto (0 for a keyframe).</summary>
        public uint BaseTick;
        /// <summary>The newest input sequence the server has processed for this client.</summary>
        public uint LastSeq;
        /// <summary>How many of the client's inputs the server holds, ahead of execution.</summary>
        public byte InputBuffer;
        /// <summary>The frame applies onto nothing.</summary>
        public bool Keyframe;
        /// <summary>FNV-1a of every record of the state the frame produces, every CHECK_EVERY frames.</summary>
        public uint? Check;
        /// <summary>The entities gone, and those whose life changed (they come again whole).</summary>
        public ushort[] Removed = new ushort[0];
        /// <summary>The entities whose groups differ from the base, ascending.</summary>
        public C[] Changes = new C[0];
        /// <summary>The serial of the first event (meaningful only when there are events).</summary>
        public uint FirstSerial;
        /// <summary>The events not yet acknowledged, oldest first; the i-th has FirstSerial + i.</summary>
        public E[] Events = new E[0];
        /// <summary>
        /// Storage a schema's reader may keep with the frame and reuse for the next frame read
        /// into it (its changes' objects): the AckedDecoder reads every frame into one
        /// AckedFrame and is done with it before the next, so a warm delivery need not make
        /// them anew. The machines never touch it.
        /// </summary>
        public object Scratch;
    }

    /// <summary>A client's kind 7 content: the tick it acknowledges, a keyframe request, its inputs.</summary>
    public sealed class AckContent<I>
    {
        /// <summary>The newest frame applied (0 for none, and while a keyframe is requested).</summary>
        public uint AckTick;
        /// <summary>The client's check failed: it asks for a keyframe (AckFlags::KEYFRAME_REQUEST).</summary>
        public bool KeyframeRequest;
        /// <summary>The sequence number of the first input (meaningful only when there are inputs).</summary>
        public uint FirstSeq;
        /// <summary>The inputs, oldest first.</summary>
        public I[] Inputs = new I[0];
    }

    /// <summary>
    /// A change that cannot apply onto the state a client holds (a whole entity without all its
    /// groups, a pose off the grid, a removed id the base does not hold): the frame is refused
    /// and counted, never applied in part. A schema's Apply throws it.
    /// </summary>
    public sealed class Inapplicable : Exception
    {
        /// <summary>Why, as the Rust codec words it.</summary>
        public string Why { get; private set; }

        /// <summary>A refusal saying <paramref name="why"/>.</summary>
        public Inapplicable(string why) : base(why)
        {
            Why = why;
        }
    }

    /// <summary>
    /// What the acked machines need to know of a schema (<typeparamref name="R"/> a record,
    /// <typeparamref name="C"/> a change, <typeparamref name="E"/> an event,
    /// <typeparamref name="I"/> an input), as the Rust codec's <c>AckedSchema</c>. Records are
    /// never edited in place by the machines: Apply returns a new one, so a record may be shared
    /// between the states held.
    /// </summary>
    public interface IAckedSchema<R, C, E, I>
        where R : class
    {
        /// <summary>Frames the server keeps per client.</summary>
        int SentRing { get; }
        /// <summary>Frame states the client keeps by tick; larger than SentRing.</summary>
        int HeldRing { get; }
        /// <summary>Frames an unacknowledged event is sent in at most.</summary>
        ulong EventTtl { get; }
        /// <summary>A check follows the header of every CheckEvery-th frame.</summary>
        ulong CheckEvery { get; }
        /// <summary>A frame larger than this many bytes goes on the reliable channel.</summary>
        int ReliableAbove { get; }

        /// <summary>The name of the schema's frames in a session (<c>acked</c> for kind 6): what the halves send them as and take them as.</summary>
        string FrameName { get; }
        /// <summary>The name of its kind 7 frames in a session (<c>ack</c>).</summary>
        string AckName { get; }

        /// <summary>
        /// Whether anything differs between <paramref name="baseRecord"/> and
        /// <paramref name="next"/> (<paramref name="baseRecord"/> is null when the entity comes
        /// whole, which always differs), and the <paramref name="change"/> that turns one into
        /// the other in a frame of tick <paramref name="tick"/>; throws an EncodeError.
        /// </summary>
        bool Diff(int eid, R baseRecord, R next, uint tick, out C change);
        /// <summary>The entity a change is about.</summary>
        int ChangeEid(C change);
        /// <summary><paramref name="baseRecord"/> (or nothing: null) with <paramref name="change"/> applied in a frame of <paramref name="tick"/>; throws Inapplicable.</summary>
        R Apply(R baseRecord, C change, uint tick);
        /// <summary>Whether two records are equal.</summary>
        bool SameRecord(R a, R b);
        /// <summary>FNV-1a 32 <paramref name="hash"/> continued over the record's canonical bytes (what the check hashes).</summary>
        uint HashRecord(R record, uint hash);
        /// <summary>The tick the record's pose was measured at, if it has one.</summary>
        uint? Measured(R record);
        /// <summary>Whether the record's pose came full (the tier the client sees), if it has one.</summary>
        bool? PoseFull(R record);
        /// <summary>A frame's bytes; throws an EncodeError.</summary>
        byte[] EncodeFrame(AckedFrame<C, E> frame);
        /// <summary>Reads a frame into <paramref name="into"/> (canonically); throws a DecodeError.</summary>
        void DecodeFrameInto(byte[] bytes, AckedFrame<C, E> into);
        /// <summary>A kind 7 frame's bytes; throws an EncodeError.</summary>
        byte[] EncodeAck(AckContent<I> ack);
        /// <summary>Reads a kind 7 frame; throws a DecodeError.</summary>
        AckContent<I> DecodeAck(byte[] bytes);
        /// <summary>The server tick an input is aimed at.</summary>
        uint InputTick(I input);
    }

    /// <summary>
    /// A schema whose frames are coded (kind 13, <c>docs/spec/coded.md</c>): predicted from states
    /// both sides hold, so that the machines name an older snapshot and encode and decode each
    /// frame against an <see cref="ICodedBasis{R}"/> (CODE-2, CODE-3). The Rust
    /// <c>AckedSchema</c>'s <c>coded</c>, <c>read_basis</c>, <c>encode_frame_on</c> and
    /// <c>decode_frame_on</c>: a schema is coded when it implements this interface (C# 7.2 has
    /// no default interface methods, so kinds 6 and 12, which do not, are left exactly as they
    /// are). The machines never call its EncodeFrame and DecodeFrameInto.
    /// </summary>
    public interface ICodedSchema<R, C, E, I> : IAckedSchema<R, C, E, I>
        where R : class
    {
        /// <summary>
        /// What a coded frame's basis is looked up by, read from its prefix before anything else:
        /// its tick, its base's, whether it is a keyframe and how far before the base its older
        /// snapshot is (0 for none). The AckedDecoder drops a frame whose base or older snapshot
        /// it does not hold before reading its changes (CODE-3). Throws a DecodeError.
        /// </summary>
        CodedBasisTicks ReadBasis(byte[] bytes);

        /// <summary>
        /// A frame's bytes written against <paramref name="basis"/>, the entity records of its
        /// base and of its older snapshot, <paramref name="older"/> ticks before the base (0:
        /// none; always 0 for a keyframe, CODE-2). Throws an EncodeError.
        /// </summary>
        byte[] EncodeFrameOn(AckedFrame<C, E> frame, byte older, ICodedBasis<R> basis);

        /// <summary>
        /// Reads a frame into <paramref name="into"/> against <paramref name="basis"/> (what
        /// EncodeFrameOn was handed on the server); throws a DecodeError.
        /// </summary>
        void DecodeFrameOnInto(byte[] bytes, ICodedBasis<R> basis, AckedFrame<C, E> into);
    }

    /// <summary>One entity of a server-side state: its id, the life it belongs to, and its record.</summary>
    public struct ServerEntry<R>
    {
        /// <summary>The entity's id.</summary>
        public ushort Eid;
        /// <summary>Which life of the id; an id whose life changed is, to the client, gone and whole again.</summary>
        public ulong Life;
        /// <summary>What the client is to hold of it.</summary>
        public R Record;

        /// <summary>Entity <paramref name="eid"/> in life <paramref name="life"/>, holding <paramref name="record"/>.</summary>
        public ServerEntry(ushort eid, ulong life, R record)
        {
            Eid = eid;
            Life = life;
            Record = record;
        }
    }

    /// <summary>The state check and the delta between two server states (S_N: every entity, ascending by id).</summary>
    public static class AckedDelta
    {
        /// <summary>FNV-1a 32 <paramref name="hash"/> continued over <c>u16 eid</c> (little-endian)
        /// then the record's bytes (CHECK-2).</summary>
        public static uint HashEntry<R, C, E, I>(IAckedSchema<R, C, E, I> schema, int eid, R r, uint hash)
            where R : class
        {
            hash = Fnv.Byte(hash, (byte)(eid & 0xff));
            hash = Fnv.Byte(hash, (byte)(eid >> 8));
            return schema.HashRecord(r, hash);
        }

        /// <summary>
        /// The check of a state (CHECK-2): FNV-1a over every record of the state the frame
        /// produces, in ascending eid, each as its `u16 eid` then the record's canonical bytes.
        /// </summary>
        public static uint ServerCheck<R, C, E, I>(IAckedSchema<R, C, E, I> schema, ServerEntry<R>[] state)
            where R : class
        {
            uint h = Fnv.Basis;
            foreach (ServerEntry<R> e in state)
            {
                h = HashEntry(schema, e.Eid, e.Record, h);
            }
            return h;
        }

        /// <summary>
        /// What turns <paramref name="baseState"/> into <paramref name="next"/> (the removed ids
        /// and the changes, both ascending) in a frame of tick <paramref name="tick"/>; <paramref
        /// name="baseState"/> is null for a keyframe. ACK-19, ACK-21: frame N carries what turns
        /// the acknowledged S_B into S_N: the entities gone or living a new life removed (the
        /// latter whole again), the groups that differ, a position as steps from the base's. Throws
        /// an EncodeError naming the change.
        /// </summary>
        public static void Delta<R, C, E, I>(IAckedSchema<R, C, E, I> schema, ServerEntry<R>[] baseState,
            ServerEntry<R>[] next, uint tick, List<ushort> removed, List<C> changes)
            where R : class
        {
            removed.Clear();
            changes.Clear();
            ServerEntry<R>[] held = baseState ?? new ServerEntry<R>[0];
            int h = 0;
            for (int i = 0; i < next.Length; i++)
            {
                ServerEntry<R> entry = next[i];
                while (h < held.Length && held[h].Eid < entry.Eid)
                {
                    removed.Add(held[h].Eid);
                    h++;
                }
                R before = null;
                if (h < held.Length && held[h].Eid == entry.Eid)
                {
                    ServerEntry<R> old = held[h];
                    h++;
                    if (old.Life == entry.Life)
                    {
                        before = old.Record;
                    }
                    else
                    {
                        removed.Add(entry.Eid);
                    }
                }
                C change;
                bool differs;
                try
                {
                    differs = schema.Diff(entry.Eid, before, entry.Record, tick, out change);
                }
                catch (EncodeError e)
                {
                    throw e.Within(i).Within("changes");
                }
                if (differs)
                {
                    changes.Add(change);
                }
                else if (before == null)
                {
                    // A whole entity always gives a change.
                    throw new EncodeError(ErrorKind.InvalidCondition).Within(i).Within("changes");
                }
            }
            for (; h < held.Length; h++)
            {
                removed.Add(held[h].Eid);
            }
        }
    }

    // ---- the client ----

    /// <summary>What the client's AckedDecoder has done, for meters and tests.</summary>
    public sealed class DecoderCounters
    {
        /// <summary>Frames applied and shown.</summary>
        public ulong Applied;
        /// <summary>Frames not newer than the last applied, dropped.</summary>
        public ulong Stale;
        /// <summary>Frames whose base the decoder does not hold, dropped; and, of a coded schema,
        /// frames whose older snapshot it does not hold (CODE-3: dropped as a frame without its
        /// base is), also counted in UnknownOlder.</summary>
        public ulong UnknownBase;
        /// <summary>Of UnknownBase, the coded frames whose base the decoder holds but whose older
        /// snapshot (CODE-2) it does not.</summary>
        public ulong UnknownOlder;
        /// <summary>Frames that did not decode.</summary>
        public ulong Undecodable;
        /// <summary>Frames that decoded but could not apply onto their base.</summary>
        public ulong Inapplicable;
        /// <summary>Checks that matched.</summary>
        public ulong ChecksPassed;
        /// <summary>Checks that did not match.</summary>
        public ulong ChecksFailed;
        /// <summary>Events shown.</summary>
        public ulong EventsShown;
    }

    /// <summary>
    /// What an applied frame changed, told against the last frame shown, not the base. ACK-34: the
    /// report of a frame (changed, measured and when, gone, tiers) compares with the last frame
    /// shown rather than the base, so a pose repeated after it was shown is not a new measurement.
    ///
    /// The decoder owns one report and refills it for every frame it shows (its lists are
    /// reused, so a warm delivery allocates none for it); it is lent until the next delivery.
    /// Pairs are parallel lists (MeasuredEids[i] was measured at MeasuredTicks[i]).
    /// </summary>
    public sealed class FrameReport<E>
    {
        /// <summary>The frame's tick.</summary>
        public uint Tick;
        /// <summary>The tick of the frame it applied onto (0 for a keyframe).</summary>
        public uint BaseTick;
        /// <summary>Whether it was a keyframe.</summary>
        public bool Keyframe;
        /// <summary>Entities whose record differs from the last frame shown (or new to it), ascending.</summary>
        public readonly List<int> Changed = new List<int>();
        /// <summary>Entities with a pose measured since the last frame shown...</summary>
        public readonly List<int> MeasuredEids = new List<int>();
        /// <summary>... and the tick each was measured at.</summary>
        public readonly List<uint> MeasuredTicks = new List<uint>();
        /// <summary>Entities the last frame shown held and this one does not, ascending.</summary>
        public readonly List<int> Gone = new List<int>();
        /// <summary>The changed entities with a tier, as the client sees it...</summary>
        public readonly List<int> TierEids = new List<int>();
        /// <summary>... and whether each one's pose came full.</summary>
        public readonly List<bool> TierFull = new List<bool>();
        /// <summary>The events shown for the first time...</summary>
        public readonly List<E> Events = new List<E>();
        /// <summary>... and their serials.</summary>
        public readonly List<uint> EventSerials = new List<uint>();
        /// <summary>The check's verdict, when the frame carried one.</summary>
        public bool? Check;

        /// <summary>Empties the lists, keeping their arrays.</summary>
        public void Clear()
        {
            Changed.Clear();
            MeasuredEids.Clear();
            MeasuredTicks.Clear();
            Gone.Clear();
            TierEids.Clear();
            TierFull.Clear();
            Events.Clear();
            EventSerials.Clear();
            Check = null;
        }
    }

    /// <summary>What the decoder did with a frame.</summary>
    public enum DeliveryKind
    {
        /// <summary>Applied and shown; the report is the decoder's, lent until its next delivery.</summary>
        Shown,
        /// <summary>Not newer than the last frame applied: dropped, counted.</summary>
        Stale,
        /// <summary>Its base is not held, or (a coded frame, CODE-3) its older snapshot: dropped, counted.</summary>
        UnknownBase,
        /// <summary>The bytes are not a frame.</summary>
        Undecodable,
        /// <summary>A frame that cannot apply onto the base it named.</summary>
        Inapplicable,
    }

    /// <summary>What the decoder did with a frame: its kind and what goes with it.</summary>
    public struct Delivery<E>
    {
        /// <summary>What happened.</summary>
        public DeliveryKind Kind;
        /// <summary>For Shown: the report (the decoder's, lent until its next delivery).</summary>
        public FrameReport<E> Report;
        /// <summary>The frame's tick (Stale, UnknownBase, Inapplicable).</summary>
        public uint Tick;
        /// <summary>The base it named (UnknownBase).</summary>
        public uint BaseTick;
        /// <summary>Why it did not decode (Undecodable).</summary>
        public DecodeError Error;
        /// <summary>Why it did not apply (Inapplicable).</summary>
        public string Why;
    }

    /// <summary>
    /// The state the client shows: every entity's record in a table indexed by id, so that a
    /// frame edits an entity in place whatever the size of the world. It grows to the largest id
    /// held (at most 65,536 slots, a u16's ids: the most a hostile server can make it hold).
    /// </summary>
    public sealed class LiveState<R> where R : class
    {
        /// <summary>The most entity ids there are: a u16 on the wire.</summary>
        public const int Ids = 65536;

        R[] slots = new R[0];
        int count;

        /// <summary>The record of <paramref name="eid"/>, or null.</summary>
        public R Get(int eid)
        {
            return eid >= 0 && eid < slots.Length ? slots[eid] : null;
        }

        /// <summary>How many entities.</summary>
        public int Count
        {
            get { return count; }
        }

        /// <summary>The largest slot index plus one (the ids at or past it are not held).</summary>
        public int Span
        {
            get { return slots.Length; }
        }

        /// <summary>Sets (or with null clears) the record of <paramref name="eid"/> (0 to 65,535).</summary>
        public void Set(int eid, R record)
        {
            if (eid >= slots.Length)
            {
                if (record == null)
                {
                    return;
                }
                slots = Fit(slots, eid);
            }
            bool was = slots[eid] != null;
            if (was != (record != null))
            {
                count += was ? -1 : 1;
            }
            slots[eid] = record;
        }

        /// <summary><paramref name="table"/> grown so that index <paramref name="eid"/> fits: a power of two, at least 64, at most 65,536.</summary>
        internal static T[] Fit<T>(T[] table, int eid)
        {
            int n = Math.Max(64, table.Length);
            while (n <= eid)
            {
                n *= 2;
            }
            n = Math.Min(n, Ids);
            if (n <= table.Length)
            {
                return table;
            }
            T[] grown = new T[n];
            Array.Copy(table, grown, table.Length);
            return grown;
        }
    }

    /// <summary>Reference equality, for sets of records (a record's own Equals is not asked).</summary>
    sealed class SameObject<T> : IEqualityComparer<T> where T : class
    {
        public bool Equals(T a, T b)
        {
            return ReferenceEquals(a, b);
        }

        public int GetHashCode(T o)
        {
            return RuntimeHelpers.GetHashCode(o);
        }
    }

    /// <summary>
    /// The client's half of the acked stream (ACK-29 to ACK-36): holds the states of its last
    /// HELD_RING frames by tick, applies each frame onto the base it names, shows each event once.
    ///
    /// Feed it every kind 6 frame with Deliver; after each, answer with a kind 7 frame
    /// acknowledging AckTick (see AckWriter). It never throws on a peer's bytes and never grows
    /// past HELD_RING states, whatever it is fed.
    ///
    /// The design is the Rust decoder's: one live state (the last frame shown) edited in place;
    /// each held frame keeps the edits that undo it, so the state of a held base B is the live
    /// state with the undo edits of every frame after B laid over it, the oldest edit of an
    /// entity winning. A frame touches only the entities it names and those edited since its
    /// base, never the world (the check, every CHECK_EVERY frames, and a keyframe aside); the
    /// undo lists, the staging table and the report are reused, so a warm delivery allocates
    /// little beyond the decoded frame and the records it makes.
    ///
    /// A coded schema's frames (an <see cref="ICodedSchema{R, C, E, I}"/>, CODE-3): what the
    /// basis is looked up by is read first, the frame dropped as one without its base when its
    /// base or its older snapshot is not held, and read against their records, each entity's
    /// found through the undo edits of the frames after the held frame, a binary search in each
    /// (HeldBasis): a change's lookup costs the frames held at most, never the world.
    /// </summary>
    public sealed class AckedDecoder<R, C, E, I>
        where R : class
    {
        const string RemovedNotHeld = "a removed id the base does not hold";

        /// <summary>One held frame: its tick, and the edits that undo it (what the frame before it held).</summary>
        sealed class Held
        {
            public uint Tick;
            // The entities the frame changed, ascending, and the record each held before it
            // (null: not held).
            public readonly List<int> Eids = new List<int>();
            public readonly List<R> Recs = new List<R>();
        }

        /// <summary>
        /// The entities a frame touches and what they become, built before anything is written,
        /// so that a frame applies entirely or not at all. Which ids are touched is a two-level
        /// bit set over the 65,536 ids (64 words over 2,048), so the touched entities are walked
        /// in ascending id without sorting, at a cost of the entities touched plus 64 words.
        /// </summary>
        sealed class Staged
        {
            public R[] Vals = new R[0];
            readonly uint[] leaf = new uint[LiveState<R>.Ids / 32];
            readonly uint[] top = new uint[LiveState<R>.Ids / 32 / 32];

            public bool Touched(int eid)
            {
                return (leaf[eid >> 5] & (1u << (eid & 31))) != 0;
            }

            public void Put(int eid, R from)
            {
                int w = eid >> 5;
                leaf[w] |= 1u << (eid & 31);
                top[w >> 5] |= 1u << (w & 31);
                if (eid >= Vals.Length)
                {
                    Vals = LiveState<R>.Fit(Vals, eid);
                }
                Vals[eid] = from;
            }

            /// <summary>Every staged id, ascending, into <paramref name="into"/> (emptied first), the values cleared when <paramref name="clear"/>; then nothing is staged.</summary>
            public void Drain(List<int> into, bool clear)
            {
                if (into != null)
                {
                    into.Clear();
                }
                for (int t = 0; t < top.Length; t++)
                {
                    uint words = top[t];
                    if (words == 0)
                    {
                        continue;
                    }
                    top[t] = 0;
                    while (words != 0)
                    {
                        int w = t * 32 + LowBit(words);
                        words &= words - 1;
                        uint bits = leaf[w];
                        leaf[w] = 0;
                        while (bits != 0)
                        {
                            int eid = w * 32 + LowBit(bits);
                            bits &= bits - 1;
                            if (clear)
                            {
                                Vals[eid] = null;
                            }
                            if (into != null)
                            {
                                into.Add(eid);
                            }
                        }
                    }
                }
            }
        }

        static readonly int[] DeBruijn =
        {
            0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
            31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9,
        };

        /// <summary>The index of the lowest set bit of <paramref name="v"/> (not 0).</summary>
        static int LowBit(uint v)
        {
            return DeBruijn[unchecked(((v & (uint)-(int)v) * 0x077CB531u) >> 27)];
        }

        /// <summary>
        /// The records a coded frame is predicted from (CODE-13, CODE-14) as the decoder holds
        /// them: those of its base and of its older snapshot, each a held frame B given by the
        /// place in <c>held</c> after it (-1: no such frame, no records). B's record of an entity
        /// is the live state's with the undo edits of the frames after B laid over it, the oldest
        /// that edited the entity winning: a binary search in each frame after B (at most
        /// HELD_RING), never a walk of the world.
        /// </summary>
        sealed class HeldBasis : ICodedBasis<R>
        {
            readonly AckedDecoder<R, C, E, I> dec;
            public int BaseAfter = -1;
            public int OlderAfter = -1;

            public HeldBasis(AckedDecoder<R, C, E, I> dec)
            {
                this.dec = dec;
            }

            public R Base(int eid)
            {
                return At(BaseAfter, eid);
            }

            public R Older(int eid)
            {
                return At(OlderAfter, eid);
            }

            R At(int after, int eid)
            {
                if (after < 0)
                {
                    return null;
                }
                List<Held> held = dec.held;
                for (int k = after; k < held.Count; k++)
                {
                    Held h = held[k];
                    int j = h.Eids.BinarySearch(eid);
                    if (j >= 0)
                    {
                        return h.Recs[j];
                    }
                }
                return dec.live.Get(eid);
            }
        }

        readonly IAckedSchema<R, C, E, I> schema;
        // The schema, when its frames are coded (kind 13); null for kinds 6 and 12.
        readonly ICodedSchema<R, C, E, I> coded;
        readonly HeldBasis basis;
        // The state of the last frame shown, edited in place by every frame applied.
        readonly LiveState<R> live = new LiveState<R>();
        uint? shownTick;
        // ACK-29: the client holds the states of its last HELD_RING applied frames, by tick, oldest
        // first, each as the edits that undo it. When any is held, the newest is the frame shown
        // (the live state).
        readonly List<Held> held = new List<Held>();
        // Undo lists of frames no longer held, for the next frames to reuse.
        readonly Stack<Held> spare = new Stack<Held>();
        readonly AckedFrame<C, E> frame = new AckedFrame<C, E>();
        readonly Staged staged = new Staged();
        readonly List<int> ids = new List<int>();
        readonly FrameReport<E> report = new FrameReport<E>();
        uint? newestSerial;
        bool wanted;
        uint seq;
        byte buffer;

        /// <summary>What the decoder has done.</summary>
        public readonly DecoderCounters Counters = new DecoderCounters();

        /// <summary>A decoder of <paramref name="schema"/> that holds nothing and has shown nothing.</summary>
        public AckedDecoder(IAckedSchema<R, C, E, I> schema)
        {
            this.schema = schema;
            coded = schema as ICodedSchema<R, C, E, I>;
            basis = new HeldBasis(this);
        }

        /// <summary>Takes one frame's bytes. Throws nothing for any bytes a peer can send.</summary>
        public Delivery<E> Deliver(byte[] bytes)
        {
            int afterBase = held.Count;
            if (coded != null)
            {
                Delivery<E> dropped;
                if (!ReadCoded(bytes, out afterBase, out dropped))
                {
                    return dropped;
                }
            }
            else
            {
                try
                {
                    schema.DecodeFrameInto(bytes, frame);
                }
                catch (DecodeError e)
                {
                    Counters.Undecodable++;
                    return new Delivery<E> { Kind = DeliveryKind.Undecodable, Error = e };
                }
                // ACK-31: a frame not newer than the last one applied is stale, and dropped.
                if (shownTick.HasValue && frame.Tick <= shownTick.Value)
                {
                    Counters.Stale++;
                    return new Delivery<E> { Kind = DeliveryKind.Stale, Tick = frame.Tick };
                }
                // ACK-30: a frame onto a base the client no longer holds (or never had) is dropped
                // silently; a later frame, on a newer acknowledgement, follows. While a keyframe is
                // wanted the decoder holds nothing, so only a keyframe applies.
                if (!frame.Keyframe)
                {
                    afterBase = After(frame.BaseTick);
                    if (afterBase < 0)
                    {
                        Counters.UnknownBase++;
                        return new Delivery<E> { Kind = DeliveryKind.UnknownBase, Tick = frame.Tick, BaseTick = frame.BaseTick };
                    }
                }
            }
            string why = Stage(afterBase);
            if (why != null)
            {
                staged.Drain(null, true);
                Counters.Inapplicable++;
                return new Delivery<E> { Kind = DeliveryKind.Inapplicable, Tick = frame.Tick, Why = why };
            }
            Held undo = spare.Count > 0 ? spare.Pop() : new Held();
            undo.Tick = frame.Tick;
            undo.Eids.Clear();
            undo.Recs.Clear();
            Commit(undo);
            // ACK-36: a frame that carries a check is held to the check (CHECK-2) of the state it
            // produces.
            bool? check = frame.Check.HasValue ? StateHash() == frame.Check.Value : (bool?)null;
            if (check == true)
            {
                Counters.ChecksPassed++;
            }
            else if (check == false)
            {
                Counters.ChecksFailed++;
            }
            report.Check = check;
            Counters.Applied++;
            seq = frame.LastSeq;
            buffer = frame.InputBuffer;
            shownTick = frame.Tick;
            if (check == false)
            {
                // ACK-36: a mismatch: every state held may be wrong. Hold nothing, acknowledge
                // nothing and ask for a keyframe (AckFlags::KEYFRAME_REQUEST, acked.wire) until one
                // applies.
                wanted = true;
                foreach (Held h in held)
                {
                    spare.Push(h);
                }
                held.Clear();
                spare.Push(undo);
            }
            else
            {
                if (frame.Keyframe)
                {
                    wanted = false;
                }
                if (wanted)
                {
                    spare.Push(undo);
                }
                else
                {
                    if (held.Count >= schema.HeldRing)
                    {
                        // The oldest held frame's edits lead to a frame no longer held.
                        spare.Push(held[0]);
                        held.RemoveAt(0);
                    }
                    held.Add(undo);
                }
            }
            return new Delivery<E> { Kind = DeliveryKind.Shown, Report = report, Tick = frame.Tick, BaseTick = frame.BaseTick };
        }

        /// <summary>The place in <c>held</c> after the held frame of tick <paramref name="tick"/>,
        /// or -1 when it is not held. Searched from the newest: a base is a recent frame.</summary>
        int After(uint tick)
        {
            for (int i = held.Count - 1; i >= 0; i--)
            {
                if (held[i].Tick == tick)
                {
                    return i + 1;
                }
            }
            return -1;
        }

        /// <summary>
        /// A coded frame (CODE-2, CODE-3) up to its application: what its basis is looked up by
        /// read first, then, unless it is stale (ACK-31) or its base or its older snapshot is not
        /// held (dropped as ACK-30 drops a frame without its base, before its changes are read),
        /// the frame decoded into <c>frame</c> against the records of both as the decoder holds
        /// them (HeldBasis). False, with why in <paramref name="dropped"/>, when it goes no
        /// further; else the place in <c>held</c> after its base in <paramref name="afterBase"/>.
        /// </summary>
        bool ReadCoded(byte[] bytes, out int afterBase, out Delivery<E> dropped)
        {
            afterBase = held.Count;
            dropped = default(Delivery<E>);
            CodedBasisTicks ticks;
            try
            {
                ticks = coded.ReadBasis(bytes);
            }
            catch (DecodeError e)
            {
                Counters.Undecodable++;
                dropped = new Delivery<E> { Kind = DeliveryKind.Undecodable, Error = e };
                return false;
            }
            if (shownTick.HasValue && ticks.Tick <= shownTick.Value)
            {
                Counters.Stale++;
                dropped = new Delivery<E> { Kind = DeliveryKind.Stale, Tick = ticks.Tick };
                return false;
            }
            Delivery<E> unknown = new Delivery<E> { Kind = DeliveryKind.UnknownBase, Tick = ticks.Tick, BaseTick = ticks.BaseTick };
            basis.BaseAfter = -1;
            basis.OlderAfter = -1;
            // CODE-2: a keyframe names no older snapshot (the schema refuses one that does).
            if (!ticks.Keyframe)
            {
                basis.BaseAfter = After(ticks.BaseTick);
                if (basis.BaseAfter < 0)
                {
                    Counters.UnknownBase++;
                    dropped = unknown;
                    return false;
                }
                if (ticks.Older != 0)
                {
                    // Before tick 0 the server sent nothing, so nothing there is held.
                    basis.OlderAfter = ticks.BaseTick >= ticks.Older ? After(ticks.BaseTick - ticks.Older) : -1;
                    if (basis.OlderAfter < 0)
                    {
                        Counters.UnknownBase++;
                        Counters.UnknownOlder++;
                        dropped = unknown;
                        return false;
                    }
                }
                afterBase = basis.BaseAfter;
            }
            try
            {
                coded.DecodeFrameOnInto(bytes, basis, frame);
                // The frame must be the one its prefix said, or it would apply onto another base
                // than the one it was read against.
                if (frame.Tick != ticks.Tick || frame.BaseTick != ticks.BaseTick || frame.Keyframe != ticks.Keyframe)
                {
                    throw new DecodeError(ErrorKind.InvalidCondition, 0, -1).Within("base_tick");
                }
            }
            catch (DecodeError e)
            {
                Counters.Undecodable++;
                dropped = new Delivery<E> { Kind = DeliveryKind.Undecodable, Error = e };
                return false;
            }
            return true;
        }

        /// <summary>
        /// The rules of ACK-5, ACK-21 and ACK-32 for a frame's removals and changes onto its base
        /// (the live state with the undo edits of the held frames from <paramref name="afterBase"/>
        /// on laid over it, the first of an entity winning; nothing for a keyframe), staged.
        /// Returns why the frame does not apply, if it does not. The faults are those of applying
        /// the removals one by one, then the changes one by one: a removed id the base does not
        /// hold (or removed twice) wins over any fault of a change, and of the changes' faults the
        /// first in frame order is told.
        /// </summary>
        string Stage(int afterBase)
        {
            if (frame.Keyframe)
            {
                // A keyframe applies onto nothing: every entity held goes unless the frame names it.
                if (frame.Removed.Length > 0)
                {
                    return RemovedNotHeld;
                }
                int span = live.Span;
                for (int eid = 0; eid < span; eid++)
                {
                    if (live.Get(eid) != null)
                    {
                        staged.Put(eid, null);
                    }
                }
            }
            else
            {
                // The base's records of the entities edited since: the oldest undo edit of each.
                for (int k = afterBase; k < held.Count; k++)
                {
                    Held h = held[k];
                    for (int j = 0; j < h.Eids.Count; j++)
                    {
                        int eid = h.Eids[j];
                        if (!staged.Touched(eid))
                        {
                            staged.Put(eid, h.Recs[j]);
                        }
                    }
                }
                // ACK-5: the entities gone, and those living a new life under their id, are removed
                // (the latter come again whole). The wire does not make the removals ascend; taken
                // one by one, any order of distinct held ids applies, and an id twice is a removal
                // of an id no longer held.
                foreach (ushort eid in frame.Removed)
                {
                    if (!staged.Touched(eid))
                    {
                        staged.Put(eid, live.Get(eid));
                    }
                    if (staged.Vals[eid] == null)
                    {
                        return RemovedNotHeld;
                    }
                    staged.Vals[eid] = null;
                }
            }
            int last = -1;
            foreach (C change in frame.Changes)
            {
                int eid = schema.ChangeEid(change);
                if (eid <= last)
                {
                    return "changes not in ascending id order";
                }
                last = eid;
                if (!staged.Touched(eid))
                {
                    staged.Put(eid, frame.Keyframe ? null : live.Get(eid));
                }
                // ACK-33: a pose sent with its age is recorded at the tick it was true (the
                // schema's Apply: tick minus age).
                try
                {
                    staged.Vals[eid] = schema.Apply(staged.Vals[eid], change, frame.Tick);
                }
                catch (Inapplicable e)
                {
                    return e.Why;
                }
            }
            return null;
        }

        /// <summary>
        /// Writes the staged entities into the live state, keeping what each write overwrote in
        /// <paramref name="undo"/>, and fills the report against the state overwritten (the last
        /// frame shown); marks the frame's new events shown.
        /// </summary>
        void Commit(Held undo)
        {
            report.Clear();
            report.Tick = frame.Tick;
            report.BaseTick = frame.BaseTick;
            report.Keyframe = frame.Keyframe;
            staged.Drain(ids, false);
            R[] vals = staged.Vals;
            for (int k = 0; k < ids.Count; k++)
            {
                int eid = ids[k];
                R next = vals[eid];
                vals[eid] = null;
                R old = live.Get(eid);
                if (ReferenceEquals(old, next) || (old != null && next != null && schema.SameRecord(old, next)))
                {
                    continue;
                }
                if (next == null)
                {
                    report.Gone.Add(eid);
                }
                else
                {
                    report.Changed.Add(eid);
                    uint? m = schema.Measured(next);
                    if (m.HasValue && (old == null || schema.Measured(old) != m))
                    {
                        report.MeasuredEids.Add(eid);
                        report.MeasuredTicks.Add(m.Value);
                    }
                    bool? full = schema.PoseFull(next);
                    if (full.HasValue)
                    {
                        report.TierEids.Add(eid);
                        report.TierFull.Add(full.Value);
                    }
                }
                undo.Eids.Add(eid);
                undo.Recs.Add(old);
                live.Set(eid, next);
            }
            // ACK-35: each event is shown once, only when its serial is above the newest shown.
            for (int i = 0; i < frame.Events.Length; i++)
            {
                // Modulo 2^32, as the server numbers them: a first serial near 2^32 wraps.
                uint serial = unchecked(frame.FirstSerial + (uint)i);
                if (!newestSerial.HasValue || serial > newestSerial.Value)
                {
                    newestSerial = serial;
                    Counters.EventsShown++;
                    report.EventSerials.Add(serial);
                    report.Events.Add(frame.Events[i]);
                }
            }
        }

        /// <summary>
        /// The tick of the newest frame applied, which the next kind 7 frame acknowledges; 0
        /// before the first and while a keyframe is wanted ("acknowledges nothing until one
        /// arrives", AckFlags::KEYFRAME_REQUEST in acked.wire).
        /// </summary>
        public uint AckTick
        {
            get { return wanted ? 0 : shownTick.GetValueOrDefault(); }
        }

        /// <summary>Whether a check failed and no keyframe has applied since (KEYFRAME_REQUEST is due).</summary>
        public bool KeyframeWanted
        {
            get { return wanted; }
        }

        /// <summary>The tick of the last frame shown, if any.</summary>
        public uint? ShownTick
        {
            get { return shownTick; }
        }

        /// <summary>The state shown (read it, never edit it: it is the decoder's).</summary>
        public LiveState<R> State
        {
            get { return live; }
        }

        /// <summary>The check of the state shown (of an empty state before the first frame).</summary>
        public uint StateHash()
        {
            uint h = Fnv.Basis;
            int span = live.Span;
            for (int eid = 0; eid < span; eid++)
            {
                R r = live.Get(eid);
                if (r != null)
                {
                    h = AckedDelta.HashEntry(schema, eid, r, h);
                }
            }
            return h;
        }

        /// <summary>The newest input sequence the server said it processed (of the last frame applied).</summary>
        public uint LastSeq
        {
            get { return seq; }
        }

        /// <summary>How many inputs the server said it holds (of the last frame applied).</summary>
        public byte InputBuffer
        {
            get { return buffer; }
        }

        /// <summary>How many frame states are held (at most HELD_RING).</summary>
        public int HeldCount
        {
            get { return held.Count; }
        }

        /// <summary>
        /// Changes every record the decoder holds and shows through <paramref name="edit"/>
        /// (which edits a record in place): a memory corruption, for tests and the conformance
        /// scenario that the check must catch. A record shared between held states is changed
        /// once, as each state's copy is in Rust.
        /// </summary>
        public void Tamper(Action<int, R> edit)
        {
            HashSet<R> seen = new HashSet<R>(new SameObject<R>());
            int span = live.Span;
            for (int eid = 0; eid < span; eid++)
            {
                R r = live.Get(eid);
                if (r != null && seen.Add(r))
                {
                    edit(eid, r);
                }
            }
            foreach (Held h in held)
            {
                for (int j = 0; j < h.Eids.Count; j++)
                {
                    R r = h.Recs[j];
                    if (r != null && seen.Add(r))
                    {
                        edit(h.Eids[j], r);
                    }
                }
            }
        }
    }

    /// <summary>
    /// Builds the client's kind 7 content (ACK-10 to ACK-12: the tick of the newest frame applied,
    /// and the recent inputs, each with its sequence number and the server tick it aims at,
    /// repeated over several frames so that a lost frame loses no input).
    ///
    /// Inputs are numbered from 1 and kept until the server's last_seq says it processed them,
    /// or until more than Keep newer ones have been pushed (clamped to 1..=255, the count's
    /// width); every frame carries all of those kept, oldest first.
    /// </summary>
    public sealed class AckWriter<I>
    {
        readonly List<uint> seqs = new List<uint>();
        readonly List<I> inputs = new List<I>();
        uint nextSeq = 1;

        /// <summary>The most inputs repeated, 1 to 255.</summary>
        public int Keep { get; private set; }

        /// <summary>A writer that repeats at most <paramref name="keep"/> inputs (clamped to 1..=255, the count's width).</summary>
        public AckWriter(ulong keep)
        {
            Keep = (int)Math.Min(255UL, Math.Max(1UL, keep));
        }

        /// <summary>Adds an input; returns its sequence number.</summary>
        public uint Push(I input)
        {
            uint s = nextSeq;
            nextSeq = unchecked(nextSeq + 1);
            seqs.Add(s);
            inputs.Add(input);
            if (seqs.Count > Keep)
            {
                int n = seqs.Count - Keep;
                seqs.RemoveRange(0, n);
                inputs.RemoveRange(0, n);
            }
            return s;
        }

        /// <summary>The server processed every input up to <paramref name="lastSeq"/>: stop repeating them.</summary>
        public void Confirm(uint lastSeq)
        {
            int n = 0;
            while (n < seqs.Count && seqs[n] <= lastSeq)
            {
                n++;
            }
            if (n > 0)
            {
                seqs.RemoveRange(0, n);
                inputs.RemoveRange(0, n);
            }
        }

        /// <summary>How many inputs are still repeated.</summary>
        public int Pending
        {
            get { return seqs.Count; }
        }

        /// <summary>
        /// The kind 7 content acknowledging <paramref name="ackTick"/>;
        /// <paramref name="keyframeRequest"/> sets KEYFRAME_REQUEST (the client's check failed
        /// and it holds no base), and the tick is then 0.
        /// </summary>
        public AckContent<I> Frame(uint ackTick, bool keyframeRequest)
        {
            return new AckContent<I>
            {
                AckTick = keyframeRequest ? 0 : ackTick,
                KeyframeRequest = keyframeRequest,
                FirstSeq = seqs.Count > 0 ? seqs[0] : 0,
                Inputs = inputs.ToArray(),
            };
        }
    }

    // ---- the server ----

    /// <summary>
    /// Where an AckedEncoder hands the client's inputs: each input of a kind 7 frame whose sequence
    /// number is new, and where the header's input_buffer comes from (ScheduledInputs implements it
    /// over the input schedule, SRV-12 to SRV-16).
    /// </summary>
    public interface IInputSink<I>
    {
        /// <summary>Takes a new input <paramref name="seq"/> aimed at server tick <paramref name="tick"/>, judged against tick <paramref name="current"/>.</summary>
        void Submit(uint seq, uint tick, I input, ulong current);

        /// <summary>How many inputs it holds ahead of execution (the header's input_buffer, saturated at 255).</summary>
        int Pending();
    }

    /// <summary>A frame to send.</summary>
    public struct Outgoing<C, E>
    {
        /// <summary>The frame.</summary>
        public AckedFrame<C, E> Frame;
        /// <summary>Its bytes.</summary>
        public byte[] Bytes;
        /// <summary>ACK-27: a frame over RELIABLE_ABOVE bytes goes on the reliable channel, and is
        /// still a frame like any other.</summary>
        public bool Reliable;
    }

    /// <summary>What the encoder has done, for meters and tests.</summary>
    public sealed class EncoderCounters
    {
        /// <summary>Frames sent.</summary>
        public ulong Frames;
        /// <summary>Of which keyframes.</summary>
        public ulong Keyframes;
        /// <summary>Of which marked for the reliable channel.</summary>
        public ulong Reliable;
        /// <summary>Acks that moved the base forward.</summary>
        public ulong AcksTaken;
        /// <summary>Acks of a tick the server does not keep.</summary>
        public ulong AcksUnknown;
        /// <summary>Acks not newer than the base taken, or from before a keyframe request.</summary>
        public ulong AcksOld;
        /// <summary>Keyframe requests received.</summary>
        public ulong KeyframeRequests;
        /// <summary>Events dropped after EVENT_TTL frames without an acknowledgement.</summary>
        public ulong EventsExpired;
        /// <summary>Coded frames that named an older snapshot (CODE-2).</summary>
        public ulong OlderNamed;
        /// <summary>Inputs submitted to the input sink.</summary>
        public ulong InputsTaken;
        /// <summary>Inputs already taken, carried again.</summary>
        public ulong InputsRepeated;
        /// <summary>Inputs dropped because MaxBufferedInputs were buffered.</summary>
        public ulong InputsOverflow;

        /// <summary>A copy of the counters now.</summary>
        public EncoderCounters Copy()
        {
            return (EncoderCounters)MemberwiseClone();
        }
    }

    /// <summary>What an ack did to the base.</summary>
    public enum AckVerdict
    {
        /// <summary>It moved the base forward.</summary>
        Taken,
        /// <summary>Not newer than the base taken, or from before a keyframe request.</summary>
        Old,
        /// <summary>A tick the server does not keep.</summary>
        Unknown,
        /// <summary>It acknowledged nothing (tick 0).</summary>
        Nothing,
        /// <summary>It asked for a keyframe.</summary>
        KeyframeRequested,
    }

    /// <summary>
    /// The server's per-client acked encoder (ACK-17 to ACK-28), generic over the schema and over
    /// where the client's inputs go. Each tick, compute the client's S_N (the reference protocol's
    /// Presenter) and call Encode; hand every kind 7 frame to Receive. Memory stays bounded
    /// whatever the acks say: SENT_RING frames, the events of EVENT_TTL frames, MaxBufferedInputs
    /// inputs.
    ///
    /// It enforces the server's rules of docs/spec/acked.md: frame N onto the newest acknowledged
    /// base it keeps (ACK-19), a keyframe without one (ACK-20), events until acknowledged or
    /// EVENT_TTL frames (ACK-23), the check every CHECK_EVERY frames (ACK-24), the inputs taken
    /// once by sequence (ACK-25), a keyframe request (ACK-26), the reliable channel over
    /// RELIABLE_ABOVE bytes (ACK-27); and of a coded schema (an
    /// <see cref="ICodedSchema{R, C, E, I}"/>), CODE-2: a frame onto a base names as its older
    /// snapshot the newest kept frame before the base that the client acknowledged (since its
    /// last keyframe request), within 255 ticks, and is written against both frames' records,
    /// each looked up by id in their kept states.
    /// </summary>
    public sealed class AckedEncoder<R, C, E, I>
        where R : class
    {
        /// <summary>
        /// Inputs a client may have buffered in its IInputSink at once; more are dropped before
        /// Submit (ACK-25).
        /// </summary>
        public const int MaxBufferedInputs = 256;

        /// <summary>One frame kept: its tick, its state, the newest event serial it carried, and
        /// whether the client acknowledged it (since its last keyframe request): a frame it
        /// applied, which a coded frame may name as its older snapshot (CODE-2).</summary>
        sealed class Kept
        {
            public uint Tick;
            public ServerEntry<R>[] State;
            public uint? EventsThrough;
            public bool Acked;
        }

        /// <summary>
        /// The records a coded frame is predicted from (CODE-13, CODE-14) as the encoder keeps
        /// them: those of its base and of its older snapshot (null: no such frame, no records),
        /// each found by a binary search of the kept state by id. The record whatever the life
        /// it belongs to: the client holds records, not lives.
        /// </summary>
        sealed class KeptBasis : ICodedBasis<R>
        {
            readonly ServerEntry<R>[] baseState;
            readonly ServerEntry<R>[] olderState;

            public KeptBasis(ServerEntry<R>[] baseState, ServerEntry<R>[] olderState)
            {
                this.baseState = baseState;
                this.olderState = olderState;
            }

            public R Base(int eid)
            {
                return At(baseState, eid);
            }

            public R Older(int eid)
            {
                return At(olderState, eid);
            }

            static R At(ServerEntry<R>[] state, int eid)
            {
                if (state == null)
                {
                    return null;
                }
                int lo = 0;
                int hi = state.Length;
                while (lo < hi)
                {
                    int mid = lo + (hi - lo) / 2;
                    int at = state[mid].Eid;
                    if (at == eid)
                    {
                        return state[mid].Record;
                    }
                    if (at < eid)
                    {
                        lo = mid + 1;
                    }
                    else
                    {
                        hi = mid;
                    }
                }
                return null;
            }
        }

        struct PendingEvent
        {
            public uint Serial;
            public ulong Born;
            public E Event;
        }

        readonly IAckedSchema<R, C, E, I> schema;
        // The schema, when its frames are coded (kind 13); null for kinds 6 and 12.
        readonly ICodedSchema<R, C, E, I> coded;
        readonly List<Kept> sent = new List<Kept>();
        uint? baseTick;
        uint? floor;
        readonly List<PendingEvent> pendingEvents = new List<PendingEvent>();
        uint nextSerial = 1;
        uint? ackedSerial;
        uint seq;
        readonly List<ushort> removed = new List<ushort>();
        readonly List<C> changes = new List<C>();

        /// <summary>Where the client's inputs go.</summary>
        public readonly IInputSink<I> Inputs;

        /// <summary>What the encoder has done.</summary>
        public readonly EncoderCounters Counters = new EncoderCounters();

        /// <summary>An encoder of <paramref name="schema"/> for a fresh client whose inputs go to <paramref name="inputs"/>.</summary>
        public AckedEncoder(IAckedSchema<R, C, E, I> schema, IInputSink<I> inputs)
        {
            this.schema = schema;
            coded = schema as ICodedSchema<R, C, E, I>;
            Inputs = inputs;
        }

        Kept Find(uint tick)
        {
            int i = IndexOf(tick);
            return i >= 0 ? sent[i] : null;
        }

        int IndexOf(uint tick)
        {
            for (int i = 0; i < sent.Count; i++)
            {
                if (sent[i].Tick == tick)
                {
                    return i;
                }
            }
            return -1;
        }

        /// <summary>
        /// The frame of tick <paramref name="tick"/>, producing <paramref name="state"/> (S_N),
        /// with this tick's new <paramref name="events"/>. A tick not newer than the last
        /// frame's is refused (an EncodeError), as is anything the schema cannot write.
        /// </summary>
        public Outgoing<C, E> Encode(uint tick, ServerEntry<R>[] state, IList<E> events)
        {
            if (sent.Count > 0 && tick <= sent[sent.Count - 1].Tick)
            {
                throw new EncodeError(ErrorKind.InvalidCondition).Within("tick");
            }
            ulong frameNo = Counters.Frames;
            foreach (E ev in events)
            {
                pendingEvents.Add(new PendingEvent { Serial = nextSerial, Born = frameNo, Event = ev });
                nextSerial = unchecked(nextSerial + 1);
            }
            // ACK-23: an event goes again in each frame until one that carried it is acknowledged,
            // or for at most EVENT_TTL frames.
            int drop = 0;
            while (drop < pendingEvents.Count)
            {
                PendingEvent p = pendingEvents[drop];
                if (ackedSerial.HasValue && p.Serial <= ackedSerial.Value)
                {
                    drop++;
                }
                else if (p.Born + schema.EventTtl <= frameNo)
                {
                    Counters.EventsExpired++;
                    drop++;
                }
                else
                {
                    break;
                }
            }
            if (drop > 0)
            {
                pendingEvents.RemoveRange(0, drop);
            }
            int baseAt = baseTick.HasValue ? IndexOf(baseTick.Value) : -1;
            Kept b = baseAt >= 0 ? sent[baseAt] : null;
            AckedDelta.Delta(schema, b == null ? null : b.State, state, tick, removed, changes);
            int carried = Math.Min(255, pendingEvents.Count);
            E[] evs = new E[carried];
            for (int i = 0; i < carried; i++)
            {
                evs[i] = pendingEvents[i].Event;
            }
            AckedFrame<C, E> frame = new AckedFrame<C, E>
            {
                Tick = tick,
                BaseTick = b == null ? 0 : b.Tick,
                LastSeq = seq,
                InputBuffer = (byte)Math.Min(255, Math.Max(0, Inputs.Pending())),
                Keyframe = b == null,
                // ACK-24: every CHECK_EVERY-th frame carries the check. Frames, not ticks, counted
                // from 1: the CHECK_EVERY-th frame carries the first check.
                Check = (frameNo + 1) % schema.CheckEvery == 0 ? AckedDelta.ServerCheck(schema, state) : (uint?)null,
                Removed = removed.ToArray(),
                Changes = changes.ToArray(),
                FirstSerial = carried > 0 ? pendingEvents[0].Serial : 0,
                Events = evs,
            };
            byte[] bytes;
            if (coded != null)
            {
                // CODE-2: a coded frame onto a base names the newest frame before it that the
                // client acknowledged, within 255 ticks; a keyframe names none. Ticks ascend, so
                // the distance is 1 to 255.
                Kept o = null;
                for (int i = baseAt - 1; i >= 0 && b.Tick - sent[i].Tick <= byte.MaxValue; i--)
                {
                    if (sent[i].Acked)
                    {
                        o = sent[i];
                        break;
                    }
                }
                byte older = o == null ? (byte)0 : (byte)(b.Tick - o.Tick);
                KeptBasis basis = new KeptBasis(b == null ? null : b.State, o == null ? null : o.State);
                bytes = coded.EncodeFrameOn(frame, older, basis);
                Counters.OlderNamed += older != 0 ? 1UL : 0UL;
            }
            else
            {
                bytes = schema.EncodeFrame(frame);
            }
            bool reliable = bytes.Length > schema.ReliableAbove;
            Counters.Frames++;
            Counters.Keyframes += frame.Keyframe ? 1UL : 0UL;
            Counters.Reliable += reliable ? 1UL : 0UL;
            sent.Add(new Kept
            {
                Tick = tick,
                State = state,
                EventsThrough = carried > 0 ? pendingEvents[carried - 1].Serial : (uint?)null,
            });
            // ACK-1, ACK-20: the server keeps fewer frames (SENT_RING) than the client holds, so
            // every base it names is one the client still holds.
            while (sent.Count > schema.SentRing)
            {
                sent.RemoveAt(0);
            }
            if (baseTick.HasValue && Find(baseTick.Value) == null)
            {
                baseTick = null;
            }
            return new Outgoing<C, E> { Frame = frame, Bytes = bytes, Reliable = reliable };
        }

        /// <summary>
        /// Takes a client's kind 7 content, judged against the tick the simulation is on,
        /// <paramref name="current"/>. Only a tick the server keeps and that is newer than the
        /// base already taken moves the base: an ack of a tick never sent, from the future or
        /// repeated changes nothing, so no frame goes onto a base the client cannot hold. Each
        /// input is taken once, by sequence number.
        /// </summary>
        public AckVerdict OnAck(ulong current, AckContent<I> ack)
        {
            AckVerdict verdict;
            uint t = ack.AckTick;
            if (ack.KeyframeRequest)
            {
                // ACK-26 (AckFlags::KEYFRAME_REQUEST): forget every acknowledgement, ignore those
                // of frames sent before the request, send keyframes until one is acked.
                Counters.KeyframeRequests++;
                baseTick = null;
                // The client holds none of them any more.
                foreach (Kept k in sent)
                {
                    k.Acked = false;
                }
                if (sent.Count > 0)
                {
                    floor = sent[sent.Count - 1].Tick;
                }
                verdict = AckVerdict.KeyframeRequested;
            }
            else if (t == 0)
            {
                verdict = AckVerdict.Nothing;
            }
            else if (floor.HasValue && t <= floor.Value)
            {
                Counters.AcksOld++;
                verdict = AckVerdict.Old;
            }
            else if (baseTick.HasValue && t <= baseTick.Value)
            {
                // Too old to move the base, but a frame the client applied (CODE-2).
                Kept k = Find(t);
                if (k != null)
                {
                    k.Acked = true;
                }
                Counters.AcksOld++;
                verdict = AckVerdict.Old;
            }
            else
            {
                Kept k = Find(t);
                if (k != null)
                {
                    k.Acked = true;
                    baseTick = t;
                    if (k.EventsThrough.HasValue)
                    {
                        ackedSerial = ackedSerial.HasValue ? Math.Max(ackedSerial.Value, k.EventsThrough.Value) : k.EventsThrough.Value;
                    }
                    Counters.AcksTaken++;
                    verdict = AckVerdict.Taken;
                }
                else
                {
                    Counters.AcksUnknown++;
                    verdict = AckVerdict.Unknown;
                }
            }
            for (int i = 0; i < ack.Inputs.Length; i++)
            {
                ulong s = (ulong)ack.FirstSeq + (ulong)i;
                if (s > uint.MaxValue)
                {
                    break;
                }
                if (s <= seq)
                {
                    Counters.InputsRepeated++;
                    continue;
                }
                seq = (uint)s;
                if (Inputs.Pending() >= MaxBufferedInputs)
                {
                    Counters.InputsOverflow++;
                    continue;
                }
                I input = ack.Inputs[i];
                Inputs.Submit(seq, schema.InputTick(input), input, current);
                Counters.InputsTaken++;
            }
            return verdict;
        }

        /// <summary>Takes a kind 7 frame's bytes (see OnAck); throws a DecodeError.</summary>
        public AckVerdict Receive(ulong current, byte[] bytes)
        {
            return OnAck(current, schema.DecodeAck(bytes));
        }

        /// <summary>The tick of the base the next frame goes onto, if any.</summary>
        public uint? Acked
        {
            get { return baseTick; }
        }

        /// <summary>Frames kept (at most SENT_RING).</summary>
        public int KeptCount
        {
            get { return sent.Count; }
        }

        /// <summary>Events waiting for an acknowledgement.</summary>
        public int PendingEventCount
        {
            get { return pendingEvents.Count; }
        }

        /// <summary>The newest input sequence taken.</summary>
        public uint LastSeq
        {
            get { return seq; }
        }
    }
}
