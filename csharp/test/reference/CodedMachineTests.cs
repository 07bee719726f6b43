// CODE-2 and CODE-3 in the C# machines (Sessions/Acked.cs), proved independently of the coder as
// the Rust codec's acked/coded_tests.rs proves them: a test-only coded schema, Probe, whose
// frames are kind 12's (the generated PackedReference) with the `older` byte and, for every
// change, a digest of the records its basis gives, so that a client whose basis differs from the
// server's refuses the frame. Run under loss, duplication and reordering, every frame the client
// applies was decoded against the server's basis; older snapshots are named; a frame whose older
// snapshot the client does not hold is dropped and counted; kind 12 through the same driver
// names none and drops none for it. Last, the generated CodedReference (kind 13) through the
// same lossy driver, and against kind 12's frames of the same world.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class CodedMachineTests
{
    static readonly PackedReference Twelve = PackedReference.Schema;

    /// What the probe's decoder checked.
    struct Checked
    {
        /// Frames read against a basis that names an older snapshot.
        public ulong FramesWithOlder;
        /// Changes whose basis digest matched.
        public ulong Changes;
        /// Of those, changes of an entity held in both the base and the older snapshot.
        public ulong InBoth;
    }

    static Checked checkedSoFar;

    static Checked TakeChecked()
    {
        Checked c = checkedSoFar;
        checkedSoFar = default(Checked);
        return c;
    }

    /// FNV-1a of the change's id and the records its basis gives (base, then older when the frame
    /// names one), each after a byte saying whether it is there.
    static uint Digest(int eid, EntityState b, EntityState older)
    {
        uint h = Fnv.Byte(Fnv.Byte(Fnv.Basis, (byte)(eid & 0xff)), (byte)(eid >> 8));
        foreach (EntityState r in new[] { b, older })
        {
            h = Fnv.Byte(h, (byte)(r != null ? 1 : 0));
            if (r != null)
            {
                h = Twelve.HashRecord(r, h);
            }
        }
        return h;
    }

    static DecodeError Bad(long at, string field)
    {
        return new DecodeError(ErrorKind.InvalidCondition, at, -1).Within(field);
    }

    static uint U32(byte[] b, int at)
    {
        return (uint)(b[at] | b[at + 1] << 8 | b[at + 2] << 16 | b[at + 3] << 24);
    }

    /// <summary>
    /// Kind 12's frames with a coded frame's basis made visible: <c>u8 older | u32 len | len
    /// bytes of kind 12 | u32 digest × changed_count</c>. <c>held</c> is its HELD_RING (the
    /// protocol's unless a test shrinks it under SENT_RING to make older snapshots go).
    /// </summary>
    sealed class Probe : ICodedSchema<EntityState, StagedChange, Event, Input>
    {
        readonly int held;

        public Probe(int held)
        {
            this.held = held;
        }

        public int SentRing { get { return Twelve.SentRing; } }
        public int HeldRing { get { return held; } }
        public ulong EventTtl { get { return Twelve.EventTtl; } }
        public ulong CheckEvery { get { return Twelve.CheckEvery; } }
        public int ReliableAbove { get { return Twelve.ReliableAbove; } }
        public string FrameName { get { return "probe"; } }
        public string AckName { get { return Twelve.AckName; } }

        public bool Diff(int eid, EntityState b, EntityState next, uint tick, out StagedChange change)
        {
            return Twelve.Diff(eid, b, next, tick, out change);
        }

        public int ChangeEid(StagedChange c)
        {
            return Twelve.ChangeEid(c);
        }

        public EntityState Apply(EntityState b, StagedChange c, uint tick)
        {
            return Twelve.Apply(b, c, tick);
        }

        public bool SameRecord(EntityState a, EntityState b)
        {
            return Twelve.SameRecord(a, b);
        }

        public uint HashRecord(EntityState r, uint hash)
        {
            return Twelve.HashRecord(r, hash);
        }

        public uint? Measured(EntityState r)
        {
            return Twelve.Measured(r);
        }

        public bool? PoseFull(EntityState r)
        {
            return Twelve.PoseFull(r);
        }

        public byte[] EncodeFrame(AckedFrame<StagedChange, Event> f)
        {
            return EncodeFrameOn(f, 0, NoBasis<EntityState>.Instance);
        }

        public void DecodeFrameInto(byte[] bytes, AckedFrame<StagedChange, Event> into)
        {
            Read(bytes, null, into);
        }

        public byte[] EncodeAck(AckContent<Input> a)
        {
            return Twelve.EncodeAck(a);
        }

        public AckContent<Input> DecodeAck(byte[] bytes)
        {
            return Twelve.DecodeAck(bytes);
        }

        public uint InputTick(Input i)
        {
            return Twelve.InputTick(i);
        }

        public CodedBasisTicks ReadBasis(byte[] bytes)
        {
            AckedFrame<StagedChange, Event> f = new AckedFrame<StagedChange, Event>();
            byte older = Read(bytes, null, f);
            return new CodedBasisTicks { Tick = f.Tick, BaseTick = f.BaseTick, Keyframe = f.Keyframe, Older = older };
        }

        public byte[] EncodeFrameOn(AckedFrame<StagedChange, Event> f, byte older, ICodedBasis<EntityState> basis)
        {
            if (f.Keyframe && older != 0)
            {
                throw new Failure("CODE-2: a keyframe names no older snapshot");
            }
            byte[] packed = Twelve.EncodeFrame(f);
            Writer w = new Writer(packed.Length + 5 + 4 * f.Changes.Length);
            w.U8(older);
            w.U32((uint)packed.Length, false);
            w.Put(packed);
            foreach (StagedChange c in f.Changes)
            {
                int eid = Twelve.ChangeEid(c);
                w.U32(Digest(eid, basis.Base(eid), older == 0 ? null : basis.Older(eid)), false);
            }
            return w.ToArray();
        }

        public void DecodeFrameOnInto(byte[] bytes, ICodedBasis<EntityState> basis, AckedFrame<StagedChange, Event> into)
        {
            Read(bytes, basis, into);
        }

        /// The older byte and the kind 12 frame, read into <paramref name="into"/>; the digests
        /// held to <paramref name="basis"/> when there is one.
        static byte Read(byte[] bytes, ICodedBasis<EntityState> basis, AckedFrame<StagedChange, Event> into)
        {
            if (bytes.Length < 5)
            {
                throw Bad(0, "len");
            }
            byte older = bytes[0];
            uint len = U32(bytes, 1);
            if (len > bytes.Length - 5)
            {
                throw Bad(1, "len");
            }
            byte[] packed = new byte[len];
            Array.Copy(bytes, 5, packed, 0, (int)len);
            Twelve.DecodeFrameInto(packed, into);
            if (into.Keyframe && older != 0)
            {
                throw Bad(0, "older");
            }
            int at = 5 + (int)len;
            if (bytes.Length - at != 4L * into.Changes.Length)
            {
                throw Bad(at, "digests");
            }
            if (basis == null)
            {
                return older;
            }
            Checked c = checkedSoFar;
            c.FramesWithOlder += older != 0 ? 1UL : 0UL;
            for (int i = 0; i < into.Changes.Length; i++)
            {
                int eid = Twelve.ChangeEid(into.Changes[i]);
                EntityState b = basis.Base(eid);
                EntityState o = older == 0 ? null : basis.Older(eid);
                if (Digest(eid, b, o) != U32(bytes, at + 4 * i))
                {
                    throw Bad(at + 4 * i, "basis");
                }
                c.Changes++;
                c.InBoth += b != null && o != null ? 1UL : 0UL;
            }
            checkedSoFar = c;
            return older;
        }
    }

    // ---- the world and the lossy driver ----

    /// A world of `n` entities that move, turn, lose health and now and then live again under
    /// their id; S_N for the server's client through the reference presenter.
    sealed class Scene
    {
        readonly Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>();
        readonly Presenter presenter = new Presenter(new ViewConfig { Own = new ushort[] { 1 } });
        readonly Rng rng;

        public Scene(ulong seed, int n)
        {
            rng = new Rng(seed * 2 + 1);
            for (int eid = 1; eid <= n; eid++)
            {
                world[eid] = new WorldEntity { Life = 1, X = eid * 3, Y = -eid, Hp = 100 };
            }
        }

        public ServerEntry<EntityState>[] Step(uint tick)
        {
            foreach (KeyValuePair<int, WorldEntity> e in world)
            {
                WorldEntity w = e.Value;
                switch (rng.Below(8))
                {
                    case 0:
                        break;
                    case 1:
                        w.Hp = (byte)Math.Max(1, w.Hp - 1);
                        break;
                    case 2:
                        if (rng.Below(20) == 0)
                        {
                            w.Life++;
                            w.X = rng.Below(40);
                        }
                        break;
                    default:
                        w.X += 0.02f * (1 + e.Key % 5);
                        w.Y -= 0.01f * (e.Key % 3);
                        w.Yaw += 0.05f;
                        if (e.Key % 2 == 0)
                        {
                            double half = tick * e.Key * 0.01;
                            w.Orient = new Xyzw(0, 0, (float)Math.Sin(half), (float)Math.Cos(half));
                        }
                        break;
                }
            }
            return presenter.Present(tick, world);
        }
    }

    /// What a lossy run did.
    struct Outcome
    {
        public ulong Shown;
        public ulong Dropped;
        public ulong DroppedOlder;
        public ulong OlderNamed;
    }

    /// Runs `ticks` ticks of a scene through an encoder and a decoder of `schema` over a network
    /// that loses `loss` percent of frames each way, duplicates `dup` percent and delays each by
    /// up to `jitter` ticks, then heals for 30 ticks: every frame shown is S_N of its tick (the
    /// client's state hash is the server's check of it), no frame is refused (a probe frame read
    /// against another basis than the server's is), and the client ends where the server is.
    static Outcome RunLossy(IAckedSchema<EntityState, StagedChange, Event, Input> schema, ulong seed, uint ticks,
        int loss, int dup, int jitter)
    {
        Rng rng = new Rng(seed + 7);
        Scene scene = new Scene(seed, 16);
        AckedEncoder<EntityState, StagedChange, Event, Input> enc =
            new AckedEncoder<EntityState, StagedChange, Event, Input>(schema, new ScheduledInputs<Input>(new InputWindow(4, 64)));
        AckedDecoder<EntityState, StagedChange, Event, Input> dec = new AckedDecoder<EntityState, StagedChange, Event, Input>(schema);
        Dictionary<uint, uint> truth = new Dictionary<uint, uint>();
        SortedDictionary<uint, List<byte[]>> down = new SortedDictionary<uint, List<byte[]>>();
        SortedDictionary<uint, List<uint>> up = new SortedDictionary<uint, List<uint>>();
        uint end = ticks + 40;
        for (uint t = 1; t <= end; t++)
        {
            bool lossy = t + 30 < ticks;
            if (t <= ticks)
            {
                ServerEntry<EntityState>[] state = scene.Step(t);
                truth[t] = AckedDelta.ServerCheck(schema, state);
                byte[] bytes = enc.Encode(t, state, new Event[0]).Bytes;
                int copies = lossy && rng.Below(100) < dup ? 2 : 1;
                for (int c = 0; c < copies; c++)
                {
                    if (!lossy || rng.Below(100) >= loss)
                    {
                        Later(down, t + 1 + (uint)(lossy && jitter > 0 ? rng.Below(jitter + 1) : 0), bytes);
                    }
                }
            }
            foreach (byte[] bytes in Due(down, t))
            {
                Delivery<Event> d = dec.Deliver(bytes);
                True(d.Kind != DeliveryKind.Undecodable, "seed " + seed + " tick " + t + ": refused: "
                    + (d.Error == null ? "" : Errors.KindName(d.Error.Kind) + " in " + d.Error.Path));
                True(d.Kind != DeliveryKind.Inapplicable, "seed " + seed + " tick " + t + ": inapplicable: " + d.Why);
                if (d.Kind == DeliveryKind.Shown)
                {
                    Equal(truth[d.Report.Tick], dec.StateHash(), "seed " + seed + ": frame " + d.Report.Tick + " shows S_N");
                    True(d.Report.Check != false, "seed " + seed + ": a check failed");
                }
                True(dec.HeldCount <= schema.HeldRing, "held past HELD_RING");
            }
            foreach (uint ack in Due(up, t))
            {
                enc.OnAck(t, new AckContent<Input> { AckTick = ack });
            }
            if (!lossy || rng.Below(100) >= loss)
            {
                Later(up, t + 1 + (uint)(lossy && jitter > 0 ? rng.Below(jitter + 1) : 0), dec.AckTick);
            }
        }
        Equal((uint?)ticks, dec.ShownTick, "seed " + seed + ": the client ends on the last frame");
        Equal(truth[ticks], dec.StateHash(), "seed " + seed + ": the client ends where the server is");
        return new Outcome
        {
            Shown = dec.Counters.Applied,
            Dropped = dec.Counters.Stale + dec.Counters.UnknownBase,
            DroppedOlder = dec.Counters.UnknownOlder,
            OlderNamed = enc.Counters.OlderNamed,
        };
    }

    static void Later<T>(SortedDictionary<uint, List<T>> queue, uint at, T item)
    {
        List<T> list;
        if (!queue.TryGetValue(at, out list))
        {
            list = new List<T>();
            queue[at] = list;
        }
        list.Add(item);
    }

    static List<T> Due<T>(SortedDictionary<uint, List<T>> queue, uint t)
    {
        List<T> due;
        if (!queue.TryGetValue(t, out due))
        {
            return new List<T>();
        }
        queue.Remove(t);
        return due;
    }

    // ---- the tests ----

    /// CODE-2, CODE-3 under loss, duplication and reordering: every frame the client applies was
    /// read against the records the server encoded it against (the probe refuses it otherwise,
    /// and the driver fails on a refused frame), older snapshots are named and found, and with
    /// HELD_RING above SENT_RING (ACK-1) none is missing.
    public static void EveryFrameAppliedHadTheServersBasis()
    {
        TakeChecked();
        Probe probe = new Probe(Twelve.HeldRing);
        ulong dropped = 0;
        for (ulong seed = 0; seed < 12; seed++)
        {
            Outcome o = RunLossy(probe, seed, 200, new[] { 10, 25, 45 }[seed % 3], 10, new[] { 1, 3, 8 }[seed % 3]);
            True(o.Shown > 0 && o.Dropped > 0, "seed " + seed + ": shown " + o.Shown + ", dropped " + o.Dropped);
            True(o.OlderNamed > 0, "seed " + seed + ": no older snapshot named");
            dropped += o.DroppedOlder;
        }
        Checked c = TakeChecked();
        True(c.FramesWithOlder > 500 && c.InBoth > 500,
            "older snapshots hardly named: " + c.FramesWithOlder + " frames, " + c.InBoth + " changes in both");
        Equal(0UL, dropped, "ACK-1 keeps every older snapshot held");
    }

    /// CODE-3 when the client lets older snapshots go: with HELD_RING at 6, under SENT_RING (a
    /// client ACK-1 forbids), frames whose older snapshot it no longer holds are dropped and
    /// counted, and the stream still shows only S_N and converges.
    public static void FramesWhoseOlderSnapshotIsGoneAreDropped()
    {
        Probe probe = new Probe(6);
        True(probe.HeldRing < probe.SentRing, "a ring under SENT_RING");
        ulong dropped = 0;
        for (ulong seed = 0; seed < 12; seed++)
        {
            Outcome o = RunLossy(probe, seed, 200, 30, 10, 6);
            True(o.Dropped >= o.DroppedOlder, "counted among the drops");
            dropped += o.DroppedOlder;
        }
        True(dropped > 0, "no frame lost its older snapshot");
    }

    /// Kind 12 through the same driver: no older snapshot named, none dropped for one (the
    /// machines leave a schema that is not coded as it was).
    public static void Kind12NamesNoOlderSnapshot()
    {
        for (ulong seed = 0; seed < 4; seed++)
        {
            Outcome o = RunLossy(Twelve, seed, 200, 25, 10, 3);
            True(o.Shown > 0, "shown");
            Equal(0UL, o.OlderNamed, "kind 12 names no older snapshot");
            Equal(0UL, o.DroppedOlder, "kind 12 drops none for one");
        }
    }

    static ServerEntry<EntityState>[] Two(uint tick)
    {
        EntityState r1 = new EntityState { X = 512 * (int)tick, Flags = StateFlags.POSE_FULL, Measured = tick, Hp = 1 };
        EntityState r2 = new EntityState { X = 1024 * (int)tick, Flags = StateFlags.POSE_FULL, Measured = tick, Hp = 1 };
        return new[] { new ServerEntry<EntityState>(1, 1, r1), new ServerEntry<EntityState>(2, 1, r2) };
    }

    /// CODE-3, step by step: the client holds 3 frames; frame 5 goes onto frame 2, which it still
    /// holds, naming frame 1, which it let go: dropped as a frame without its base is, counted
    /// apart, the acknowledgement unchanged.
    public static void AFrameWhoseOlderIsNotHeldIsDropped()
    {
        Probe probe = new Probe(3);
        AckedEncoder<EntityState, StagedChange, Event, Input> enc =
            new AckedEncoder<EntityState, StagedChange, Event, Input>(probe, new ScheduledInputs<Input>(new InputWindow(4, 64)));
        AckedDecoder<EntityState, StagedChange, Event, Input> dec = new AckedDecoder<EntityState, StagedChange, Event, Input>(probe);
        List<byte> olders = new List<byte>();
        for (uint t = 1; t <= 5; t++)
        {
            byte[] bytes = enc.Encode(t, Two(t), new Event[0]).Bytes;
            olders.Add(bytes[0]);
            Equal(t < 5, dec.Deliver(bytes).Kind == DeliveryKind.Shown, "tick " + t + " shown");
            if (t <= 2)
            {
                enc.OnAck(t, new AckContent<Input> { AckTick = dec.AckTick });
            }
        }
        // Frames 3 to 5 go onto 2 and name 1, the frame before it the client acknowledged.
        Equal("0 0 1 1 1", string.Join(" ", olders), "older distances");
        Equal(4UL, dec.Counters.Applied, "applied");
        Equal(1UL, dec.Counters.UnknownBase, "dropped as without its base");
        Equal(1UL, dec.Counters.UnknownOlder, "of which for the older snapshot");
        Equal(4u, dec.AckTick, "the acknowledgement unchanged");
        Equal(3UL, enc.Counters.OlderNamed, "older snapshots named");
    }

    /// CODE-2 on the server: the older snapshot is the newest acknowledged frame before the base,
    /// an acknowledgement too old to move the base counting; none past 255 ticks; none for a
    /// keyframe, and none acknowledged before a keyframe request.
    public static void TheOlderSnapshotIsTheNewestAcknowledgedWithin255Ticks()
    {
        Probe probe = new Probe(Twelve.HeldRing);
        AckedEncoder<EntityState, StagedChange, Event, Input> enc =
            new AckedEncoder<EntityState, StagedChange, Event, Input>(probe, new ScheduledInputs<Input>(new InputWindow(4, 64)));
        Func<AckedEncoder<EntityState, StagedChange, Event, Input>, uint, string> older = (e, t) =>
        {
            Outgoing<StagedChange, Event> o = e.Encode(t, Two(t), new Event[0]);
            return (o.Frame.Keyframe ? "key" : "on " + o.Frame.BaseTick) + " older " + o.Bytes[0];
        };
        Func<AckedEncoder<EntityState, StagedChange, Event, Input>, uint, AckVerdict> ack =
            (e, t) => e.OnAck(t, new AckContent<Input> { AckTick = t });
        for (uint t = 1; t <= 4; t++)
        {
            older(enc, t);
        }
        // Acks of 3 then, reordered, 1: the base is 3, and 1 is acknowledged too.
        ack(enc, 3);
        Equal(AckVerdict.Old, ack(enc, 1), "a reordered ack is old");
        Equal("on 3 older 2", older(enc, 5), "frame 5");
        // The ack of 2, late: the newest acknowledged before the base now.
        ack(enc, 2);
        Equal("on 3 older 1", older(enc, 6), "frame 6");
        // The base stays 3 until an ack moves it; then 3, 254 ticks before the base, is named,
        // and (below) 1, 256 ticks before it, is not.
        Equal("on 3 older 1", older(enc, 257), "frame 257");
        ack(enc, 257);
        Equal("on 257 older 254", older(enc, 258), "frame 258: 3 is 254 ticks before 257");
        ack(enc, 258);
        Equal("on 258 older 1", older(enc, 259), "frame 259");
        AckedEncoder<EntityState, StagedChange, Event, Input> far =
            new AckedEncoder<EntityState, StagedChange, Event, Input>(probe, new ScheduledInputs<Input>(new InputWindow(4, 64)));
        older(far, 1);
        ack(far, 1);
        older(far, 257);
        ack(far, 257);
        Equal("on 257 older 0", older(far, 258), "1 is 256 ticks before 257: not named");
        // A keyframe request: keyframes, naming nothing, then frames whose older snapshot is
        // acknowledged after the request only.
        enc.OnAck(259, new AckContent<Input> { KeyframeRequest = true });
        Equal("key older 0", older(enc, 260), "a keyframe");
        ack(enc, 260);
        Equal("on 260 older 0", older(enc, 261), "nothing acknowledged before 260 since the request");
        ack(enc, 261);
        Equal("on 261 older 1", older(enc, 262), "frame 262");
    }

    // ---- the generated CodedReference (kind 13) ----

    /// The generated kind 13 schema under loss, duplication and reordering: every frame the client
    /// shows is S_N of its tick (RunLossy holds the client's state hash to the server's check),
    /// none is refused, older snapshots are named (so velocities are predicted from them), and
    /// the client ends where the server is.
    public static void GeneratedCodedReferenceShowsTheServersStates()
    {
        CodedReference coded = CodedReference.Schema;
        for (ulong seed = 0; seed < 9; seed++)
        {
            Outcome o = RunLossy(coded, seed, 200, new[] { 10, 25, 45 }[seed % 3], 10, new[] { 1, 3, 8 }[seed % 3]);
            True(o.Shown > 40, "seed " + seed + ": shown " + o.Shown);
            True(o.OlderNamed > 0, "seed " + seed + ": no older snapshot named");
            Equal(0UL, o.DroppedOlder, "seed " + seed + ": ACK-1 keeps every older snapshot held");
        }
    }

    /// The records of one kept state, by id, as a coded frame's basis.
    sealed class Held : ICodedBasis<EntityState>
    {
        public Dictionary<int, EntityState> BaseRecords = new Dictionary<int, EntityState>();
        public Dictionary<int, EntityState> OlderRecords = new Dictionary<int, EntityState>();

        public EntityState Base(int eid)
        {
            EntityState r;
            return BaseRecords.TryGetValue(eid, out r) ? r : null;
        }

        public EntityState Older(int eid)
        {
            EntityState r;
            return OlderRecords.TryGetValue(eid, out r) ? r : null;
        }
    }

    /// The same world through kind 12 and kind 13, every frame acknowledged at once: kind 13's
    /// frames are fewer bytes in all (its values range-coded and predicted), each frame reads
    /// back through the generated AckedCoded to the frame kind 12 carries, and writes back to
    /// the same bytes, in its JSON form too.
    public static void GeneratedCodedFramesAreSmallerThanKind12s()
    {
        CodedReference coded = CodedReference.Schema;
        long twelveBytes = 0;
        long codedBytes = 0;
        int frames = 0;
        for (ulong seed = 0; seed < 4; seed++)
        {
            Scene a = new Scene(seed, 16);
            Scene b = new Scene(seed, 16);
            AckedEncoder<EntityState, StagedChange, Event, Input> e12 =
                new AckedEncoder<EntityState, StagedChange, Event, Input>(Twelve, new ScheduledInputs<Input>(new InputWindow(4, 64)));
            AckedEncoder<EntityState, StagedChange, Event, Input> e13 =
                new AckedEncoder<EntityState, StagedChange, Event, Input>(coded, new ScheduledInputs<Input>(new InputWindow(4, 64)));
            AckedDecoder<EntityState, StagedChange, Event, Input> d13 = new AckedDecoder<EntityState, StagedChange, Event, Input>(coded);
            Dictionary<uint, Dictionary<int, EntityState>> shown = new Dictionary<uint, Dictionary<int, EntityState>>();
            for (uint t = 1; t <= 150; t++)
            {
                ServerEntry<EntityState>[] s12 = a.Step(t);
                ServerEntry<EntityState>[] s13 = b.Step(t);
                Outgoing<StagedChange, Event> o12 = e12.Encode(t, s12, new Event[0]);
                Outgoing<StagedChange, Event> o13 = e13.Encode(t, s13, new Event[0]);
                twelveBytes += o12.Bytes.Length;
                codedBytes += o13.Bytes.Length;
                frames++;
                // The frame read back against the states it was written against, which the
                // client holds: its header and changes are kind 12's frame of the same tick.
                CodedBasisTicks ticks = AckedCoded.ReadBasis(o13.Bytes);
                Held basis = new Held();
                if (!ticks.Keyframe)
                {
                    basis.BaseRecords = shown[ticks.BaseTick];
                    if (ticks.Older != 0)
                    {
                        basis.OlderRecords = shown[ticks.BaseTick - ticks.Older];
                    }
                }
                AckedCoded f = AckedCoded.Decode(o13.Bytes, basis);
                AckedPacked p = AckedPacked.Decode(o12.Bytes);
                Equal(Text(p.Body), Text(f.Body), "seed " + seed + " tick " + t + ": the changes");
                Equal(p.Tick, f.Tick, "the tick");
                Equal(Convert.ToBase64String(o13.Bytes), Convert.ToBase64String(f.Encode(basis)), "tick " + t + ": written back");
                JsonWriter j = new JsonWriter();
                f.ToJson(j);
                AckedCoded again = AckedCoded.FromJson(JsonValue.Parse(j.ToString()));
                Equal(Convert.ToBase64String(o13.Bytes), Convert.ToBase64String(again.Encode(basis)), "tick " + t + ": through JSON");
                Delivery<Event> d = d13.Deliver(o13.Bytes);
                Equal(DeliveryKind.Shown, d.Kind, "tick " + t + " shown");
                Dictionary<int, EntityState> state = new Dictionary<int, EntityState>();
                foreach (ServerEntry<EntityState> x in s13)
                {
                    state[x.Eid] = x.Record;
                }
                shown[t] = state;
                e12.OnAck(t, new AckContent<Input> { AckTick = t });
                e13.OnAck(t, new AckContent<Input> { AckTick = d13.AckTick });
            }
        }
        Console.WriteLine("     " + frames + " frames: kind 12 " + twelveBytes + " bytes, kind 13 " + codedBytes + " bytes");
        True(codedBytes < twelveBytes, "kind 13 " + codedBytes + " bytes, kind 12 " + twelveBytes);
    }

    static string Text(PackedChanges c)
    {
        JsonWriter j = new JsonWriter();
        c.ToJson(j);
        return j.ToString();
    }
}
