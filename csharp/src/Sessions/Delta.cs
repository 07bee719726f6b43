// Delta streaming (`docs/spec/delta.md`), both halves, as the Rust codec's `delta` module and the
// TypeScript and C++ ports: a subscriber's visible set of keys sent as the keys that entered and
// left since a baseline, checked by a digest on the return path.
//
// Relevance says what changed; this keeps the books that get it to a subscriber and keep it there.
//
// - AckWindow: the (newest, mask) pair of a `delta_ack` (DELTA-3 to DELTA-6);
// - Agreement: the outcome of comparing a mirror's digest with the server's;
// - DeltaBaseline (server) and DeltaMirror with Divergence (client);
// - SlotAllocator: SlotKeys handed out with a generation bumped on reuse;
// - DeltaServer and DeltaClient: the session halves over an IDeltaSchema, which binds the
//   machines to a protocol's `delta_plan` and `delta_ack` frames.
//
// Sequences are ulongs compared as the Rust u64s; the only sums on them are guarded. Sans-IO:
// time is an argument in the application's own clock units, nothing reads a clock.

using System;
using System.Collections.Generic;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>
    /// The newest sequence received and a mask of the <see cref="Window"/> before it. DELTA-6,
    /// DELTA-7: the newest u64 sequence and a 64-bit mask whose bit i means that newest − 1 − i
    /// arrived; contiguous_base(first) walks from first while the next sequence is held. Any pair a
    /// peer sends is accepted. A struct: nothing is allocated.
    /// </summary>
    public struct AckWindow
    {
        /// <summary>How many sequences behind the newest the mask speaks about.</summary>
        public const ulong Window = 64;

        ulong newest;
        ulong bits;
        bool started;

        /// <summary>The window a peer sent as (<paramref name="newest"/>, <paramref name="mask"/>).</summary>
        public static AckWindow FromEncoded(ulong newest, ulong mask)
        {
            return new AckWindow { newest = newest, bits = mask, started = true };
        }

        /// <summary>Whether anything arrived: Newest and Mask are what goes on the wire only then.</summary>
        public bool Started { get { return started; } }

        /// <summary>The newest sequence recorded, if any.</summary>
        public ulong? Newest { get { return started ? newest : (ulong?)null; } }

        /// <summary>The mask as it goes on the wire: bit i is newest - 1 - i.</summary>
        public ulong Mask { get { return bits; } }

        /// <summary>Records that <paramref name="seq"/> arrived. True when it is fresh: false for a
        /// duplicate and for a straggler older than the window, which is forgotten.</summary>
        public bool Observe(ulong seq)
        {
            if (!started)
            {
                newest = seq;
                bits = 0;
                started = true;
                return true;
            }
            if (seq > newest)
            {
                ulong shift = seq - newest;
                // A shift of exactly Window keeps the old newest in the last bit; one more drops it.
                ulong moved = shift >= 64 ? 0 : bits << (int)shift;
                bits = shift <= Window ? moved | (1UL << (int)(shift - 1)) : 0;
                newest = seq;
                return true;
            }
            if (seq == newest)
            {
                return false;
            }
            ulong back = newest - seq;
            if (back > Window)
            {
                return false;
            }
            ulong bit = 1UL << (int)(back - 1);
            bool fresh = (bits & bit) == 0;
            bits |= bit;
            return fresh;
        }

        /// <summary>Whether <paramref name="seq"/> is recorded as arrived; false outside the window and beyond the newest.</summary>
        public bool Contains(ulong seq)
        {
            if (!started || seq > newest)
            {
                return false;
            }
            if (seq == newest)
            {
                return true;
            }
            ulong back = newest - seq;
            return back <= Window && (bits & (1UL << (int)(back - 1))) != 0;
        }

        /// <summary>
        /// The newest sequence such that every sequence from <paramref name="first"/> up to it
        /// arrived (DELTA-7); null when <paramref name="first"/> did not arrive. At most Window
        /// steps.
        /// </summary>
        public ulong? ContiguousBase(ulong first)
        {
            if (!Contains(first))
            {
                return null;
            }
            ulong b = first;
            while (b < newest && Contains(b + 1))
            {
                b += 1;
            }
            return b;
        }

        /// <summary>Forgets everything.</summary>
        public void Reset()
        {
            newest = 0;
            bits = 0;
            started = false;
        }
    }

    /// <summary>What a digest comparison found.</summary>
    public enum AgreementKind
    {
        /// <summary>The digests are equal.</summary>
        Agrees,
        /// <summary>They differ.</summary>
        Disagrees,
        /// <summary>Not compared (DELTA-15: compared only once the frontier has reached the newest
        /// packet reported).</summary>
        Unchecked,
    }

    /// <summary>The outcome of one digest comparison (DELTA-15; SRV-1: one type both sides
    /// share).</summary>
    public struct Agreement
    {
        /// <summary>What was found.</summary>
        public AgreementKind Kind;
        /// <summary>The digest of the state believed held (Disagrees).</summary>
        public ulong Expected;
        /// <summary>The digest reported (Disagrees).</summary>
        public ulong Reported;

        /// <summary>Compares <paramref name="reported"/> with <paramref name="expected"/>, the digest of the state believed held.</summary>
        public static Agreement Compare(ulong expected, ulong reported)
        {
            return expected == reported
                ? new Agreement { Kind = AgreementKind.Agrees }
                : new Agreement { Kind = AgreementKind.Disagrees, Expected = expected, Reported = reported };
        }

        /// <summary>Not compared.</summary>
        public static Agreement Unchecked { get { return new Agreement { Kind = AgreementKind.Unchecked }; } }
    }

    /// <summary>A <c>delta_plan</c> frame as a protocol's codec gives it.</summary>
    public sealed class PlanFrame
    {
        /// <summary>FULL_BASELINE and BASELINE, as the schema's bits say.</summary>
        public byte Flags;
        /// <summary>This packet's sequence.</summary>
        public ulong Sequence;
        /// <summary>The sequence the differences were computed against, if sent.</summary>
        public ulong? BaselineSeq;
        /// <summary>Keys to hold, ascending.</summary>
        public ulong[] Entered;
        /// <summary>Keys to drop, ascending.</summary>
        public ulong[] Left;
    }

    /// <summary>A <c>delta_ack</c> frame.</summary>
    public sealed class DeltaAckFrame
    {
        /// <summary>The newest sequence received.</summary>
        public ulong Newest;
        /// <summary>Bit i: newest - 1 - i arrived too.</summary>
        public ulong Mask;
        /// <summary>SetDigest of the keys held.</summary>
        public ulong Digest;
    }

    /// <summary>What binds the delta halves to a protocol: its frames' names, flag bits and codecs.</summary>
    public interface IDeltaSchema
    {
        /// <summary>The plan frame's name in the spec (<c>delta_plan</c>).</summary>
        string PlanFrame { get; }
        /// <summary>The ack frame's name (<c>delta_ack</c>).</summary>
        string AckFrame { get; }
        /// <summary>The plan flag that says "clear the mirror first".</summary>
        byte FullBaseline { get; }
        /// <summary>The plan flag that says baseline_seq follows.</summary>
        byte Baseline { get; }
        /// <summary>Decodes a plan; throws the codec's DecodeError.</summary>
        PlanFrame DecodePlan(byte[] bytes);
        /// <summary>Encodes a plan; throws the codec's EncodeError.</summary>
        byte[] EncodePlan(PlanFrame plan);
        /// <summary>Decodes an ack; throws the codec's DecodeError.</summary>
        DeltaAckFrame DecodeAck(byte[] bytes);
        /// <summary>Encodes an ack.</summary>
        byte[] EncodeAck(DeltaAckFrame ack);
    }

    /// <summary>How a mirror differs from the server's own key set (DeltaMirror.DivergenceFrom).</summary>
    public sealed class Divergence
    {
        /// <summary>Keys the mirror holds that the server's set does not, ascending.</summary>
        public List<SlotKey> Extra = new List<SlotKey>();
        /// <summary>Keys the server's set holds that the mirror does not, ascending.</summary>
        public List<SlotKey> Missing = new List<SlotKey>();
    }

    /// <summary>What applying one plan did (DeltaMirror.Apply).</summary>
    public struct Applied
    {
        /// <summary>Whether it was applied; false for one older than the newest applied.</summary>
        public bool WasApplied;
        /// <summary>Whether it was a full baseline that cleared the mirror first.</summary>
        public bool Cleared;
        /// <summary>Keys inserted.</summary>
        public int Entered;
        /// <summary>Keys removed.</summary>
        public int Left;
        /// <summary>Retractions naming an occupant the mirror does not hold, refused.</summary>
        public int StaleRefs;
    }

    /// <summary>Bounds on what a DeltaMirror holds, whatever the server sends.</summary>
    public struct MirrorLimits
    {
        /// <summary>
        /// Occupants held at most (default 65,536, as the Rust <c>MirrorLimits::max_keys</c>). A
        /// plan that would take the mirror past it is refused whole with a SessionError
        /// (<c>limit</c>): not applied, not acknowledged, which to the server is a packet the
        /// network lost.
        /// </summary>
        public int MaxKeys;

        /// <summary>The default: 65,536 keys.</summary>
        public static MirrorLimits Default { get { return new MirrorLimits { MaxKeys = 1 << 16 }; } }
    }

    /// <summary>
    /// The client's copy of a streamed set of SlotKeys: one occupant per slot. A packet older than
    /// the newest applied is acknowledged, not applied (on a link that reorders, applying it would
    /// bring back a key a newer packet retracted). A reference to a generation other than the one
    /// held is a stale reference, counted and refused.
    /// </summary>
    public sealed class DeltaMirror
    {
        readonly Dictionary<uint, ushort> held = new Dictionary<uint, ushort>();
        readonly MirrorLimits limits;
        SetDigest set;
        AckWindow window;
        bool hasApplied;
        ulong appliedSeq;
        readonly bool generational;
        // Scratch sets of WouldHold, reused so that a plan near the limit allocates nothing new.
        readonly HashSet<uint> freed = new HashSet<uint>();
        readonly HashSet<uint> taken = new HashSet<uint>();

        /// <summary>Sequences skipped between applied packets (saturating).</summary>
        public ulong FramesLost;
        /// <summary>Packets not applied because a newer one was.</summary>
        public long StalePackets;
        /// <summary>References to an occupant not held, refused.</summary>
        public long StaleRefs;

        /// <summary>An empty mirror; with <paramref name="generational"/> false every key is taken as generation 0.</summary>
        public DeltaMirror(MirrorLimits limits, bool generational)
        {
            this.limits = limits;
            this.generational = generational;
        }

        /// <summary>An empty generational mirror of the default limits.</summary>
        public DeltaMirror() : this(MirrorLimits.Default, true)
        {
        }

        SlotKey Normalise(SlotKey key)
        {
            return generational ? key : new SlotKey(key.Index, 0);
        }

        bool IsStale(ulong seq)
        {
            return hasApplied && seq <= appliedSeq;
        }

        /// <summary>Opens packet <paramref name="seq"/>: records its arrival, says whether to apply
        /// it, clears on a full one.</summary>
        public bool Begin(ulong seq, bool fullBaseline)
        {
            window.Observe(seq);
            if (IsStale(seq))
            {
                StalePackets += 1;
                return false;
            }
            if (hasApplied)
            {
                ulong skipped = seq - appliedSeq - 1;
                FramesLost = FramesLost + skipped < FramesLost ? ulong.MaxValue : FramesLost + skipped;
            }
            hasApplied = true;
            appliedSeq = seq;
            if (fullBaseline)
            {
                Clear();
            }
            return true;
        }

        /// <summary>Files <paramref name="key"/>, replacing whatever occupies its slot; a new slot at
        /// the limit is refused (SessionError <c>limit</c>).</summary>
        public void Insert(SlotKey key)
        {
            SlotKey k = Normalise(key);
            if (held.Count >= limits.MaxKeys && !held.ContainsKey(k.Index))
            {
                throw new SessionError("limit", "the mirror would hold " + (held.Count + 1) + " keys, more than " + limits.MaxKeys);
            }
            InsertWithinLimits(k);
        }

        void InsertWithinLimits(SlotKey k)
        {
            ushort old;
            if (held.TryGetValue(k.Index, out old))
            {
                set.Remove(Digests.SlotKeyOf(k.Index, old));
            }
            held[k.Index] = k.Generation;
            set.Insert(k.Encode());
        }

        /// <summary>Removes the occupant <paramref name="key"/> names; another generation's key is a stale reference.</summary>
        public bool Remove(SlotKey key)
        {
            SlotKey k = Normalise(key);
            ushort g;
            if (!held.TryGetValue(k.Index, out g))
            {
                return false;
            }
            if (g != k.Generation)
            {
                StaleRefs += 1;
                return false;
            }
            set.Remove(k.Encode());
            held.Remove(k.Index);
            return true;
        }

        /// <summary>Whether the mirror holds the occupant <paramref name="key"/> names.</summary>
        public bool Contains(SlotKey key)
        {
            SlotKey k = Normalise(key);
            ushort g;
            return held.TryGetValue(k.Index, out g) && g == k.Generation;
        }

        /// <summary>Every key held, ascending as encoded keys.</summary>
        public List<ulong> Keys()
        {
            List<ulong> out_ = new List<ulong>(held.Count);
            foreach (KeyValuePair<uint, ushort> kv in held)
            {
                out_.Add(Digests.SlotKeyOf(kv.Key, kv.Value));
            }
            out_.Sort();
            return out_;
        }

        /// <summary>How many occupants are held.</summary>
        public int Count { get { return held.Count; } }

        /// <summary>Drops every occupant. DELTA-25: a client may skip any part of the stream unread
        /// if it also drops its mirror: its next acknowledgement then reports the empty set's
        /// digest, and the server replies with a full baseline..</summary>
        public void Clear()
        {
            held.Clear();
            set.Clear();
        }

        /// <summary>The digest of the keys held now.</summary>
        public ulong Digest()
        {
            return set.Digest();
        }

        /// <summary>How the digest held compares with <paramref name="serverDigest"/>, what the server believes is held.</summary>
        public Agreement AgreementWith(ulong serverDigest)
        {
            return Agreement.Compare(serverDigest, Digest());
        }

        /// <summary>How this mirror differs from the server's key set (a digest says only that the
        /// two differ; this says how).</summary>
        public Divergence DivergenceFrom(IEnumerable<ulong> serverKeys)
        {
            HashSet<ulong> theirs = new HashSet<ulong>(serverKeys);
            HashSet<ulong> mine = new HashSet<ulong>(Keys());
            List<ulong> extra = new List<ulong>();
            List<ulong> missing = new List<ulong>();
            foreach (ulong k in mine)
            {
                if (!theirs.Contains(k))
                {
                    extra.Add(k);
                }
            }
            foreach (ulong k in theirs)
            {
                if (!mine.Contains(k))
                {
                    missing.Add(k);
                }
            }
            extra.Sort();
            missing.Sort();
            Divergence d = new Divergence();
            foreach (ulong k in extra)
            {
                d.Extra.Add(SlotKey.Decode(k));
            }
            foreach (ulong k in missing)
            {
                d.Missing.Add(SlotKey.Decode(k));
            }
            return d;
        }

        /// <summary>What arrived, for the acknowledgement.</summary>
        public AckWindow Acks { get { return window; } }

        /// <summary>The newest sequence applied, if any.</summary>
        public ulong? AppliedSeq { get { return hasApplied ? appliedSeq : (ulong?)null; } }

        /// <summary>The ack to send now: the window and the digest held; null before any packet.</summary>
        public DeltaAckFrame Ack()
        {
            if (!window.Started)
            {
                return null;
            }
            return new DeltaAckFrame { Newest = window.Newest.Value, Mask = window.Mask, Digest = Digest() };
        }

        // How many occupants applying `frame` would leave held (an upper bound when within).
        long WouldHold(PlanFrame frame, bool full)
        {
            long b = full ? 0 : held.Count;
            if (b + frame.Entered.Length <= limits.MaxKeys)
            {
                return b + frame.Entered.Length;
            }
            // Counted as apply goes: retractions of an occupant held free its slot, then each
            // arrival takes a slot not held (one per slot, however many generations name it).
            freed.Clear();
            taken.Clear();
            if (!full)
            {
                foreach (ulong key in frame.Left)
                {
                    SlotKey k = Normalise(SlotKey.Decode(key));
                    ushort g;
                    if (held.TryGetValue(k.Index, out g) && g == k.Generation)
                    {
                        freed.Add(k.Index);
                    }
                }
            }
            long would = b - freed.Count;
            foreach (ulong key in frame.Entered)
            {
                uint index = Normalise(SlotKey.Decode(key)).Index;
                bool occupied = !full && held.ContainsKey(index) && !freed.Contains(index);
                if (!occupied && taken.Add(index))
                {
                    would += 1;
                }
            }
            freed.Clear();
            taken.Clear();
            return would;
        }

        /// <summary>
        /// Applies a received plan (<paramref name="fullFlag"/> the schema's FULL_BASELINE bit):
        /// begin, retractions, arrivals. A plan that would leave more than MaxKeys held is refused
        /// before anything is touched (SessionError <c>limit</c>): neither applied nor recorded as
        /// arrived, as if the network had lost it, which DELTA-12's opposite baselines heal.
        /// </summary>
        public Applied Apply(PlanFrame frame, byte fullFlag)
        {
            bool full = (frame.Flags & fullFlag) != 0;
            if (!IsStale(frame.Sequence))
            {
                long would = WouldHold(frame, full);
                if (would > limits.MaxKeys)
                {
                    throw new SessionError("limit", "plan " + frame.Sequence + " would leave the mirror holding " + would + " keys, more than " + limits.MaxKeys);
                }
            }
            Applied out_ = new Applied { Cleared = full };
            if (!Begin(frame.Sequence, full))
            {
                out_.Cleared = false;
                return out_;
            }
            out_.WasApplied = true;
            long before = StaleRefs;
            foreach (ulong key in frame.Left)
            {
                if (Remove(SlotKey.Decode(key)))
                {
                    out_.Left += 1;
                }
            }
            out_.StaleRefs = (int)(StaleRefs - before);
            foreach (ulong key in frame.Entered)
            {
                InsertWithinLimits(Normalise(SlotKey.Decode(key)));
                out_.Entered += 1;
            }
            return out_;
        }
    }

    /// <summary>Which state the differences are computed against (DELTA-10).</summary>
    public enum RecoveryPolicy
    {
        /// <summary>Against the last state sent, as if every packet arrived.</summary>
        Naive,
        /// <summary>Against what the subscriber acknowledged, with the states sent since.</summary>
        AckRecovery,
    }

    /// <summary>What to send this round (DELTA-1, DELTA-12).</summary>
    public sealed class DeltaPlan
    {
        /// <summary>The subscriber must clear its mirror first.</summary>
        public bool FullBaseline;
        /// <summary>The sequence the differences were computed against, if any.</summary>
        public ulong? BaselineSeq;
        /// <summary>Keys to hold, ascending.</summary>
        public List<ulong> Entered = new List<ulong>();
        /// <summary>Keys to drop, ascending.</summary>
        public List<ulong> Left = new List<ulong>();
    }

    /// <summary>Flow control of a DeltaBaseline: when a silent subscriber counts as stalled and how
    /// often it is sent to then.</summary>
    public struct FlowControl
    {
        /// <summary>Silence longer than this is a stall.</summary>
        public ulong StalledAfter;
        /// <summary>A stalled subscriber is sent one plan this often (at least 1).</summary>
        public ulong KeepaliveEvery;
    }

    /// <summary>
    /// One subscriber's bookkeeping (DELTA-9 to DELTA-19): what it was sent, what it has
    /// acknowledged, and so what to send next. At most <c>history</c> sent states are kept:
    /// DELTA-13: a baseline older than the history cannot be re-derived, so it forces a full
    /// rebuild rather than a wrong difference.
    /// </summary>
    public sealed class DeltaBaseline
    {
        sealed class SentState
        {
            public ulong Seq;
            public HashSet<ulong> State;
            public bool Standalone;
        }

        sealed class AckedState
        {
            public ulong Seq;
            public HashSet<ulong> State;
            public ulong Digest;
        }

        enum PendingKind
        {
            Nothing,
            Fresh,
            Rebuild,
        }

        readonly RecoveryPolicy policy;
        readonly int history;
        List<SentState> sent = new List<SentState>();
        AckedState ackedState;
        bool historyLost;
        bool hasLastSent;
        ulong lastSentSeq;
        HashSet<ulong> lastSent;
        PendingKind pending = PendingKind.Fresh;
        long rebuilds;
        AckWindow window;
        readonly bool hasFlow;
        readonly FlowControl flow;
        bool hasLastAck;
        ulong lastAck;
        bool hasLastKeepalive;
        ulong lastKeepalive;
        readonly bool driftCheck;

        /// <summary>A subscriber keeping <paramref name="history"/> sent states (at least 1); flow
        /// control when <paramref name="flow"/> is given.</summary>
        public DeltaBaseline(int history, RecoveryPolicy policy, FlowControl? flow, bool driftCheck)
        {
            this.history = Math.Max(1, history);
            this.policy = policy;
            this.driftCheck = driftCheck;
            hasFlow = flow.HasValue;
            if (hasFlow)
            {
                this.flow = flow.Value;
                this.flow.KeepaliveEvery = Math.Max(1UL, this.flow.KeepaliveEvery);
            }
        }

        static ulong Since(ulong now, ulong then)
        {
            return now > then ? now - then : 0;
        }

        /// <summary>Whether the subscriber is silent for more than StalledAfter (never without flow).</summary>
        public bool Stalled(ulong now)
        {
            return hasFlow && hasLastAck && Since(now, lastAck) > flow.StalledAfter;
        }

        /// <summary>
        /// Whether to plan and send this round: DELTA-18: a stalled subscriber gets one packet
        /// every `keepalive_every` until it acknowledges again, and a joiner is not born stalled.
        /// </summary>
        public bool ShouldSend(ulong now)
        {
            bool stalled = Stalled(now);
            if (!hasFlow)
            {
                return true;
            }
            if (!hasLastAck)
            {
                hasLastAck = true;
                lastAck = now;
                return true;
            }
            if (!stalled)
            {
                return true;
            }
            if (hasLastKeepalive && Since(now, lastKeepalive) < flow.KeepaliveEvery)
            {
                return false;
            }
            hasLastKeepalive = true;
            lastKeepalive = now;
            return true;
        }

        /// <summary>Forgets everything; the next plan is a full baseline. Call when a subscriber takes the slot.</summary>
        public void Reset()
        {
            NewEpoch();
            pending = PendingKind.Fresh;
            hasLastAck = false;
            hasLastKeepalive = false;
        }

        /// <summary>Forces the next plan to be a full baseline in a new epoch, counted as a rebuild.</summary>
        public void RequestFullBaseline()
        {
            Rebuild();
        }

        static List<ulong> Sorted(IEnumerable<ulong> keys)
        {
            List<ulong> l = new List<ulong>(keys);
            l.Sort();
            return l;
        }

        /// <summary>What to send given the visible set <paramref name="current"/>; <paramref name="seq"/> numbers the packet (consecutively).</summary>
        public DeltaPlan Plan(HashSet<ulong> current, ulong seq)
        {
            bool recovering = policy == RecoveryPolicy.AckRecovery;
            if (recovering && historyLost)
            {
                Rebuild();
            }
            PendingKind p = pending;
            pending = PendingKind.Nothing;
            if (p == PendingKind.Rebuild)
            {
                rebuilds += 1;
            }
            bool unknown = recovering && ackedState == null;
            DeltaPlan plan = new DeltaPlan();
            bool standalone;
            AckedState acked = ackedState;
            if (p != PendingKind.Nothing || unknown)
            {
                plan.FullBaseline = true;
                plan.Entered = Sorted(current);
                standalone = true;
            }
            else if (acked != null && recovering)
            {
                // DELTA-12: sends are computed against the smallest state the subscriber can hold
                // (the acknowledged state intersected with everything sent after it), retractions
                // against the largest (the acknowledged state unioned with everything sent after
                // it).
                HashSet<ulong> least = new HashSet<ulong>(acked.State);
                HashSet<ulong> most = new HashSet<ulong>(acked.State);
                foreach (SentState s in sent)
                {
                    if (s.Seq > acked.Seq)
                    {
                        least.IntersectWith(s.State);
                        most.UnionWith(s.State);
                    }
                }
                plan.BaselineSeq = acked.Seq;
                foreach (ulong k in current)
                {
                    if (!least.Contains(k))
                    {
                        plan.Entered.Add(k);
                    }
                }
                foreach (ulong k in most)
                {
                    if (!current.Contains(k))
                    {
                        plan.Left.Add(k);
                    }
                }
                plan.Entered.Sort();
                plan.Left.Sort();
                standalone = true;
            }
            else if (hasLastSent)
            {
                // Naive: against the last state sent, as if every packet arrived.
                plan.BaselineSeq = lastSentSeq;
                foreach (ulong k in current)
                {
                    if (!lastSent.Contains(k))
                    {
                        plan.Entered.Add(k);
                    }
                }
                foreach (ulong k in lastSent)
                {
                    if (!current.Contains(k))
                    {
                        plan.Left.Add(k);
                    }
                }
                plan.Entered.Sort();
                plan.Left.Sort();
                standalone = false;
            }
            else
            {
                plan.FullBaseline = true;
                plan.Entered = Sorted(current);
                standalone = true;
            }
            sent.Add(new SentState { Seq = seq, State = new HashSet<ulong>(current), Standalone = standalone });
            while (sent.Count > history)
            {
                SentState old = sent[0];
                sent.RemoveAt(0);
                if (ackedState != null && old.Seq > ackedState.Seq)
                {
                    historyLost = true;
                }
            }
            hasLastSent = true;
            lastSentSeq = seq;
            lastSent = new HashSet<ulong>(current);
            return plan;
        }

        /// <summary>
        /// The return path: the subscriber's window and digest. The frontier steps to the newest
        /// standalone packet sent since the acknowledged state that the window reports (DELTA-14);
        /// the digest is compared only when the frontier has reached the newest packet reported
        /// (DELTA-15), and a disagreement makes the next plan a full rebuild. A no-op under the
        /// naive policy.
        /// </summary>
        public Agreement ObserveAck(ulong newest, ulong mask, ulong digest)
        {
            if (policy != RecoveryPolicy.AckRecovery)
            {
                return Agreement.Unchecked;
            }
            AckWindow w = AckWindow.FromEncoded(newest, mask);
            window = w;
            SentState reached = null;
            for (int i = sent.Count - 1; i >= 0; i--)
            {
                SentState s = sent[i];
                if (s.Standalone && w.Contains(s.Seq))
                {
                    reached = s;
                    break;
                }
            }
            if (reached != null)
            {
                ulong seq = reached.Seq;
                SetDigest d = SetDigest.FromKeys(reached.State);
                ackedState = new AckedState { Seq = seq, State = new HashSet<ulong>(reached.State), Digest = d.Digest() };
                sent.RemoveAll(s => s.Seq <= seq);
            }
            AckedState a = ackedState;
            // DELTA-16: every digest is compared (the empty set's too) unless the check is off.
            Agreement agreement = a != null && driftCheck && a.Seq == newest
                ? Agreement.Compare(a.Digest, digest)
                : Agreement.Unchecked;
            if (agreement.Kind == AgreementKind.Disagrees)
            {
                Rebuild();
            }
            return agreement;
        }

        /// <summary>ObserveAck plus the arrival time for flow control: an ack from a stalled
        /// subscriber is "**the resume signal**, and it starts a fresh epoch".</summary>
        public Agreement ObserveAckAt(ulong newest, ulong mask, ulong digest, ulong now)
        {
            bool resuming = Stalled(now);
            if (resuming)
            {
                Reset();
            }
            if (hasFlow)
            {
                hasLastAck = true;
                lastAck = now;
            }
            return resuming ? Agreement.Unchecked : ObserveAck(newest, mask, digest);
        }

        /// <summary>Full rebuilds needed so far (a new subscriber's first full baseline is not one).</summary>
        public long FullRebuilds { get { return rebuilds; } }

        /// <summary>Packets sent since the acknowledged state and not in the last window.</summary>
        public int Unacked
        {
            get
            {
                int n = 0;
                foreach (SentState s in sent)
                {
                    if ((ackedState == null || s.Seq > ackedState.Seq) && !window.Contains(s.Seq))
                    {
                        n += 1;
                    }
                }
                return n;
            }
        }

        /// <summary>The newest sequence the subscriber acknowledged reaching the state of, if any.</summary>
        public ulong? AckedSeq { get { return ackedState == null ? (ulong?)null : ackedState.Seq; } }

        /// <summary>Sent states held now (at most the history length).</summary>
        public int HeldStates { get { return sent.Count; } }

        void Rebuild()
        {
            NewEpoch();
            pending = PendingKind.Rebuild;
        }

        // DELTA-17: a new epoch drops the acknowledged state, the last sent and the history.
        void NewEpoch()
        {
            sent = new List<SentState>();
            ackedState = null;
            historyLost = false;
            hasLastSent = false;
            lastSent = null;
            window = new AckWindow();
        }
    }

    /// <summary>What a <c>delta_ack</c> left the delta server at.</summary>
    public struct DeltaAckReport
    {
        /// <summary>The newest plan acknowledged, if any.</summary>
        public ulong? AckedSeq;
        /// <summary>Plans sent and not acknowledged.</summary>
        public int Unacked;
        /// <summary>Full baselines rebuilt.</summary>
        public long FullRebuilds;
        /// <summary>Whether the connection is stalled.</summary>
        public bool Stalled;
    }

    /// <summary>
    /// The server's half: one subscriber's DeltaBaseline. A tick takes the keys visible now and,
    /// when ShouldSend(now.Ms), sends one unreliable plan numbered from 1 upwards; a frame is a
    /// <c>delta_ack</c>, observed at now.Ms.
    /// </summary>
    public sealed class DeltaServer : ISessionHalf<HashSet<ulong>, DeltaAckReport>
    {
        readonly IDeltaSchema schema;
        ulong seq;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly DeltaBaseline Baseline;

        /// <summary>The half over <paramref name="baseline"/>.</summary>
        public DeltaServer(IDeltaSchema schema, DeltaBaseline baseline)
        {
            this.schema = schema;
            Baseline = baseline;
        }

        /// <summary>A <c>delta_ack</c> arrives at <c>now.Ms</c>.</summary>
        public DeltaAckReport HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.AckFrame);
            DeltaAckFrame ack;
            try
            {
                ack = schema.DecodeAck(bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError("decode", e.Message, e);
            }
            Baseline.ObserveAckAt(ack.Newest, ack.Mask, ack.Digest, now.Ms);
            return new DeltaAckReport
            {
                AckedSeq = Baseline.AckedSeq,
                Unacked = Baseline.Unacked,
                FullRebuilds = Baseline.FullRebuilds,
                Stalled = Baseline.Stalled(now.Ms),
            };
        }

        /// <summary>A tick passes with <paramref name="visible"/> the keys the subscriber should hold.</summary>
        public void HandleTick(Now now, HashSet<ulong> visible)
        {
            if (!Baseline.ShouldSend(now.Ms))
            {
                return;
            }
            if (seq == ulong.MaxValue)
            {
                throw new SessionError("limit", "the plans ran out of u64 sequences");
            }
            seq += 1;
            DeltaPlan p = Baseline.Plan(visible, seq);
            PlanFrame frame = new PlanFrame
            {
                Flags = (byte)((p.FullBaseline ? schema.FullBaseline : 0) | (p.BaselineSeq.HasValue ? schema.Baseline : 0)),
                Sequence = seq,
                BaselineSeq = p.BaselineSeq,
                Entered = p.Entered.ToArray(),
                Left = p.Left.ToArray(),
            };
            byte[] bytes;
            try
            {
                bytes = schema.EncodePlan(frame);
            }
            catch (EncodeError e)
            {
                throw new SessionError("encode", e.Message, e);
            }
            out_.Push(new Transmit(schema.PlanFrame, bytes, false));
        }

        /// <summary>The next plan to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }

    /// <summary>
    /// The client's half: a DeltaMirror. A frame is a <c>delta_plan</c>, applied (a plan past the
    /// mirror's limits is refused whole, unacknowledged: SessionError <c>limit</c>); its ack is
    /// polled.
    /// </summary>
    public sealed class DeltaClient : ISessionHalf<object, Applied>
    {
        readonly IDeltaSchema schema;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly DeltaMirror Mirror;

        /// <summary>The half over <paramref name="mirror"/>.</summary>
        public DeltaClient(IDeltaSchema schema, DeltaMirror mirror)
        {
            this.schema = schema;
            Mirror = mirror;
        }

        /// <summary>A <c>delta_plan</c> arrives.</summary>
        public Applied HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.PlanFrame);
            PlanFrame plan;
            try
            {
                plan = schema.DecodePlan(bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError("decode", e.Message, e);
            }
            Applied applied = Mirror.Apply(plan, schema.FullBaseline);
            DeltaAckFrame ack = Mirror.Ack();
            if (ack != null)
            {
                out_.Push(new Transmit(schema.AckFrame, schema.EncodeAck(ack), false));
            }
            return applied;
        }

        /// <summary>The client has nothing to do on a tick.</summary>
        public void HandleTick(Now now, object input)
        {
        }

        /// <summary>The next ack to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }

    /// <summary>Which free slot SlotAllocator.Allocate hands out next (DELTA-8).</summary>
    public struct ReusePolicy
    {
        /// <summary>False: <c>lowest_free</c>, the lowest free index, used before or not. True:
        /// <c>fifo</c>, first freed first reused, and only while more than Quarantine freed slots
        /// wait (below that a never-used index is handed out while the capacity allows; past it
        /// the oldest freed slot is reused anyway).</summary>
        public bool Fifo;
        /// <summary>Freed slots that wait before reuse, under <c>fifo</c>.</summary>
        public int Quarantine;
    }

    /// <summary>
    /// Hands out SlotKeys from <c>capacity</c> slots, one live occupant per slot, a slot's
    /// generation bumped each time it is reused (DELTA-3: a retraction must name the occupant the
    /// subscriber holds, not the slot's current one). The first occupant of a slot is generation 0;
    /// every reuse the next, wrapping at 65,535. Memory is bounded by the capacity.
    /// </summary>
    public sealed class SlotAllocator
    {
        struct Slot
        {
            public ushort Generation;
            public bool Live;
            public long Order;
        }

        readonly ReusePolicy policy;
        readonly uint capacity;
        readonly List<Slot> slots = new List<Slot>();
        // Free slots that had an occupant, by (order, index), ascending.
        readonly SortedSet<KeyValuePair<long, uint>> freed = new SortedSet<KeyValuePair<long, uint>>(new OrderIndex());
        // Slots below slots.Count that never had an occupant, ascending.
        readonly SortedSet<uint> unused = new SortedSet<uint>();
        long stamp;
        int live;

        sealed class OrderIndex : IComparer<KeyValuePair<long, uint>>
        {
            public int Compare(KeyValuePair<long, uint> a, KeyValuePair<long, uint> b)
            {
                int c = a.Key.CompareTo(b.Key);
                return c != 0 ? c : a.Value.CompareTo(b.Value);
            }
        }

        /// <summary>An allocator of slots 0..<paramref name="capacity"/>, none occupied.</summary>
        public SlotAllocator(uint capacity, ReusePolicy policy)
        {
            this.capacity = capacity;
            this.policy = policy;
        }

        /// <summary>How many slots are occupied.</summary>
        public int Count { get { return live; } }

        bool Fresh(out uint index)
        {
            if (unused.Count > 0)
            {
                index = unused.Min;
                return true;
            }
            index = (uint)slots.Count;
            return (uint)slots.Count < capacity;
        }

        /// <summary>A new occupant in the slot the policy picks; null when every slot is occupied.</summary>
        public SlotKey? Allocate()
        {
            uint fresh;
            bool hasFresh = Fresh(out fresh);
            bool hasOldest = freed.Count > 0;
            uint oldest = hasOldest ? freed.Min.Value : 0;
            uint index;
            if (!policy.Fifo)
            {
                if (!hasOldest && !hasFresh)
                {
                    return null;
                }
                index = !hasOldest ? fresh : !hasFresh ? oldest : Math.Min(oldest, fresh);
            }
            else
            {
                bool waiting = freed.Count > policy.Quarantine;
                if (waiting || !hasFresh)
                {
                    if (!hasOldest)
                    {
                        return null;
                    }
                    index = oldest;
                }
                else
                {
                    index = fresh;
                }
            }
            return AllocateAt(index);
        }

        /// <summary>A new occupant in slot <paramref name="index"/>; null when outside the capacity or occupied.</summary>
        public SlotKey? AllocateAt(uint index)
        {
            if (index >= capacity)
            {
                return null;
            }
            if (index >= (uint)slots.Count)
            {
                for (uint i = (uint)slots.Count; i < index; i++)
                {
                    unused.Add(i);
                }
                while ((uint)slots.Count <= index)
                {
                    slots.Add(new Slot());
                }
                // The slot itself has never had an occupant: its first is generation 0.
                Slot s = slots[(int)index];
                s.Live = true;
                slots[(int)index] = s;
            }
            else
            {
                Slot s = slots[(int)index];
                if (s.Live)
                {
                    return null;
                }
                if (unused.Remove(index))
                {
                    s.Generation = 0;
                }
                else
                {
                    freed.Remove(new KeyValuePair<long, uint>(s.Order, index));
                    // DELTA-3: a respawn in the same slot must be a different key.
                    s.Generation = unchecked((ushort)(s.Generation + 1));
                }
                s.Live = true;
                slots[(int)index] = s;
            }
            live += 1;
            return new SlotKey(index, slots[(int)index].Generation);
        }

        /// <summary>Frees the occupant <paramref name="key"/> names; false, changing nothing, when it is not live.</summary>
        public bool Free(SlotKey key)
        {
            if (!IsLive(key))
            {
                return false;
            }
            long order = !policy.Fifo ? key.Index : ++stamp;
            Slot s = slots[(int)key.Index];
            s.Live = false;
            s.Order = order;
            slots[(int)key.Index] = s;
            freed.Add(new KeyValuePair<long, uint>(order, key.Index));
            live -= 1;
            return true;
        }

        /// <summary>Whether <paramref name="key"/> is the live occupant of its slot.</summary>
        public bool IsLive(SlotKey key)
        {
            if (key.Index >= (uint)slots.Count)
            {
                return false;
            }
            Slot s = slots[(int)key.Index];
            return s.Live && s.Generation == key.Generation;
        }

        /// <summary>The live occupant of slot <paramref name="index"/>, if any.</summary>
        public SlotKey? Occupant(uint index)
        {
            if (index >= (uint)slots.Count || !slots[(int)index].Live)
            {
                return null;
            }
            return new SlotKey(index, slots[(int)index].Generation);
        }

        /// <summary>Every live occupant, ascending by slot.</summary>
        public List<SlotKey> Live()
        {
            List<SlotKey> out_ = new List<SlotKey>();
            for (int i = 0; i < slots.Count; i++)
            {
                if (slots[i].Live)
                {
                    out_.Add(new SlotKey((uint)i, slots[i].Generation));
                }
            }
            return out_;
        }
    }
}
