// Tests of Sessions/Digest.cs, Datagram.cs, Baseline.cs and Delta.cs: the DELTA-3 to DELTA-6 values
// the Rust digest module documents (mix64, SlotKey, SetDigest), the AckWindow cases of the Rust
// codec's delta/ack.rs, and each machine's rules and hostile-peer limits, driven through small test
// schemas (the reference protocol's bindings need the generated codec and are exercised by the
// conformance vectors instead). Found by RuntimeTests.Main through the `Tests` list.

using System;
using System.Collections.Generic;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class RestTests
{
    static SessionError Refused(string kind, Action op)
    {
        try
        {
            op();
        }
        catch (SessionError e)
        {
            Equal(kind, e.Kind, "refusal kind");
            return e;
        }
        throw new Failure("no SessionError, want " + kind);
    }

    /// <summary>This file's tests, run by RuntimeTests.Main.</summary>
    public static readonly KeyValuePair<string, Action>[] Tests =
    {
        new KeyValuePair<string, Action>("mix64", Mix64),
        new KeyValuePair<string, Action>("slot_key", SlotKeys),
        new KeyValuePair<string, Action>("set_digest", SetDigests),
        new KeyValuePair<string, Action>("ack_window", AckWindows),
        new KeyValuePair<string, Action>("delta_recovers_lost_plans", DeltaRecovers),
        new KeyValuePair<string, Action>("delta_mirror_limit", DeltaMirrorLimit),
        new KeyValuePair<string, Action>("delta_stale_refs_and_flow", DeltaStaleAndFlow),
        new KeyValuePair<string, Action>("slot_allocator", SlotAllocators),
        new KeyValuePair<string, Action>("quantize", Quantize),
        new KeyValuePair<string, Action>("datagram_round_trip", DatagramRoundTrip),
        new KeyValuePair<string, Action>("replica_whole_ticks", ReplicaWholeTicks),
        new KeyValuePair<string, Action>("replica_limits", ReplicaLimitsHold),
        new KeyValuePair<string, Action>("replica_held_bytes", ReplicaHeldBytesHold),
        new KeyValuePair<string, Action>("baseline_round_trip", BaselineRoundTrip),
        new KeyValuePair<string, Action>("baseline_client_rules", BaselineClientRules),
    };

    // ---- Digest.cs: the values of codec/src/digest.rs ----

    /// DELTA-4.
    static void Mix64()
    {
        Equal(0xE220A8397B1DCDAFUL, Digests.Mix64(0), "mix64(0)");
        Equal(0x910A2DEC89025CC1UL, Digests.Mix64(1), "mix64(1)");
        Equal(0x975835DE1C9756CEUL, Digests.Mix64(2), "mix64(2)");
        Equal(0x63033B0CA389C35AUL, Digests.Mix64(5), "mix64(5)");
        Equal(0xA924D7EBAD36B5ACUL, Digests.Mix64(Digests.SlotKeyOf(7, 3)), "mix64(slot_key(7, 3))");
    }

    /// DELTA-3.
    static void SlotKeys()
    {
        Equal(0UL, Digests.SlotKeyOf(0, 0), "slot_key(0, 0)");
        Equal((7UL << 16) | 3, Digests.SlotKeyOf(7, 3), "slot_key(7, 3)");
        Equal(0xFFFFFFFFFFFFUL, Digests.SlotKeyOf(uint.MaxValue, ushort.MaxValue), "slot_key(max, max)");
        SlotKey k = SlotKey.Decode(new SlotKey(123456, 789).Encode());
        Equal(123456u, k.Index, "index back");
        Equal((ushort)789, k.Generation, "generation back");
        SlotKey all = SlotKey.Decode(ulong.MaxValue);
        Equal(uint.MaxValue, all.Index, "high bits ignored: index");
        Equal(ushort.MaxValue, all.Generation, "high bits ignored: generation");
    }

    /// DELTA-5.
    static void SetDigests()
    {
        SetDigest empty = new SetDigest();
        Equal(0xE220A8397B1DCDAFUL, empty.Digest(), "empty digest is mix64(0)");
        Equal(0xF20916E02A8B9F9BUL, SetDigest.FromKeys(new ulong[] { 5 }).Digest(), "{5}");
        SetDigest two = SetDigest.FromKeys(new ulong[] { 1, 2 });
        Equal(0xBF3A5614B90EE541UL, two.Digest(), "{1, 2}");
        Equal(2u, two.Count, "{1, 2} count");
        Equal(two.Digest(), SetDigest.FromKeys(new ulong[] { 2, 1 }).Digest(), "order independent");
        Equal(Digests.Mix64(0) ^ Digests.Mix64(1), SetDigest.FromKeys(new ulong[] { 0 }).Digest(), "count mixed in");
        SetDigest d = SetDigest.FromKeys(new ulong[] { 10, 20, 30 });
        ulong before = d.Digest();
        d.Insert(40);
        True(d.Digest() != before, "a key changes the digest");
        d.Remove(40);
        Equal(before, d.Digest(), "insert then remove returns exactly");
        Equal(3u, d.Count, "count back");
        // The count wraps instead of throwing, even in a build with -checked+.
        SetDigest w = new SetDigest();
        w.Remove(9);
        Equal(uint.MaxValue, w.Count, "count wraps below zero");
        w.Insert(9);
        Equal(empty.Digest(), w.Digest(), "and back to empty");
        d.Clear();
        Equal(empty.Digest(), d.Digest(), "clear");
    }

    // ---- Delta.cs ----

    static AckWindow Window(params ulong[] seqs)
    {
        AckWindow w = new AckWindow();
        foreach (ulong s in seqs)
        {
            w.Observe(s);
        }
        return w;
    }

    /// DELTA-6, DELTA-7.
    static void AckWindows()
    {
        // DELTA-6: bit i of the mask means that newest − 1 − i arrived.
        AckWindow w = Window(10, 9, 7);
        Equal((ulong?)10, w.Newest, "newest");
        Equal(0b101UL, w.Mask, "mask");
        AckWindow f = new AckWindow();
        True(f.Observe(20) && f.Observe(25) && f.Observe(22), "fresh arrivals");
        True(!f.Observe(22) && !f.Observe(25), "duplicates are not fresh");
        True(f.Contains(22) && !f.Contains(23) && !f.Contains(26), "contains");
        AckWindow x = Window(0);
        x.Observe(AckWindow.Window);
        True(x.Contains(0), "a shift of exactly the window keeps the old newest");
        Equal(1UL << 63, x.Mask, "in the last bit");
        x.Observe(AckWindow.Window + 1);
        True(!x.Contains(0) && !x.Observe(0), "one more forgets it");
        AckWindow big = Window(0, 1, 2);
        big.Observe(ulong.MaxValue);
        Equal(0UL, big.Mask, "a big jump forgets");
        Equal((ulong?)ulong.MaxValue, big.ContiguousBase(ulong.MaxValue), "base at u64::MAX");
        AckWindow c = Window(1, 2, 3, 5, 6, 7);
        Equal((ulong?)3, c.ContiguousBase(1), "stops at the first gap");
        Equal((ulong?)null, c.ContiguousBase(4), "4 never arrived");
        c.Observe(4);
        Equal((ulong?)7, c.ContiguousBase(1), "the filled gap unblocks the run");
        Equal((ulong?)null, new AckWindow().ContiguousBase(0), "empty");
        Equal((ulong?)null, Window(5, 1000).ContiguousBase(6), "older than the window");
        AckWindow e = AckWindow.FromEncoded(w.Newest.Value, w.Mask);
        True(e.Contains(10) && e.Contains(9) && !e.Contains(8) && e.Contains(7), "the encoding round trips");
        foreach (ulong[] pair in new[] { new[] { 0UL, ulong.MaxValue }, new[] { ulong.MaxValue, ulong.MaxValue }, new[] { 63UL, ulong.MaxValue } })
        {
            AckWindow any = AckWindow.FromEncoded(pair[0], pair[1]);
            any.ContiguousBase(0);
            any.ContiguousBase(ulong.MaxValue);
        }
    }

    /// A plan as DeltaServer would put it on the wire.
    static PlanFrame Frame(DeltaPlan p, ulong seq)
    {
        return new PlanFrame
        {
            Flags = (byte)((p.FullBaseline ? 1 : 0) | (p.BaselineSeq.HasValue ? 2 : 0)),
            Sequence = seq,
            BaselineSeq = p.BaselineSeq,
            Entered = p.Entered.ToArray(),
            Left = p.Left.ToArray(),
        };
    }

    static HashSet<ulong> Keys(params ulong[] keys)
    {
        return new HashSet<ulong>(keys);
    }

    /// DELTA-11, DELTA-12, DELTA-14, DELTA-15, DELTA-20.
    static void DeltaRecovers()
    {
        DeltaBaseline server = new DeltaBaseline(32, RecoveryPolicy.AckRecovery, null, true);
        DeltaMirror mirror = new DeltaMirror();
        // 1: a full baseline, delivered and acknowledged.
        HashSet<ulong> world = Keys(Digests.SlotKeyOf(1, 0), Digests.SlotKeyOf(2, 0));
        DeltaPlan p1 = server.Plan(world, 1);
        True(p1.FullBaseline, "the first plan is a full baseline");
        Applied a1 = mirror.Apply(Frame(p1, 1), 1);
        True(a1.WasApplied && a1.Cleared && a1.Entered == 2, "applied");
        DeltaAckFrame ack = mirror.Ack();
        Equal(AgreementKind.Agrees, server.ObserveAck(ack.Newest, ack.Mask, ack.Digest).Kind, "digests agree");
        Equal((ulong?)1, server.AckedSeq, "acked");
        // 2: slot 1 leaves, slot 3 enters; the plan is lost.
        world = Keys(Digests.SlotKeyOf(2, 0), Digests.SlotKeyOf(3, 0));
        server.Plan(world, 2);
        // 3: slot 3 respawns as generation 1; against the acked state, so it carries slot 1's
        // retraction again although plan 2 never arrived.
        world = Keys(Digests.SlotKeyOf(2, 0), Digests.SlotKeyOf(3, 1));
        DeltaPlan p3 = server.Plan(world, 3);
        Equal((ulong?)1, p3.BaselineSeq, "against the acknowledged state");
        mirror.Apply(Frame(p3, 3), 1);
        Equal(1UL, mirror.FramesLost, "one plan lost");
        List<ulong> held = mirror.Keys();
        List<ulong> want = new List<ulong>(world);
        want.Sort();
        Equal(string.Join(",", want), string.Join(",", held), "the mirror holds the world");
        ack = mirror.Ack();
        Equal(AgreementKind.Agrees, server.ObserveAck(ack.Newest, ack.Mask, ack.Digest).Kind, "agree after recovery");
        // A wrong digest makes the next plan a full rebuild.
        Equal(AgreementKind.Disagrees, server.ObserveAck(ack.Newest, ack.Mask, ack.Digest ^ 1).Kind, "a lie disagrees");
        True(server.Plan(world, 4).FullBaseline, "rebuilt");
        Equal(1L, server.FullRebuilds, "counted");
        Divergence d = mirror.DivergenceFrom(new ulong[] { Digests.SlotKeyOf(2, 0), Digests.SlotKeyOf(9, 0) });
        Equal(1, d.Extra.Count, "extra");
        Equal(3u, d.Extra[0].Index, "extra is slot 3");
        Equal(9u, d.Missing[0].Index, "missing is slot 9");
        // A stale plan is acknowledged, not applied.
        Applied old = mirror.Apply(Frame(p1, 1), 1);
        True(!old.WasApplied && !old.Cleared, "stale");
        Equal(1L, mirror.StalePackets, "counted stale");
    }

    /// DELTA-24.
    static void DeltaMirrorLimit()
    {
        DeltaMirror mirror = new DeltaMirror(new MirrorLimits { MaxKeys = 2 }, true);
        PlanFrame three = new PlanFrame { Flags = 1, Sequence = 1, Entered = new ulong[] { 1 << 16, 2 << 16, 3 << 16 }, Left = new ulong[0] };
        Refused("limit", () => mirror.Apply(three, 1));
        Equal(0, mirror.Count, "nothing applied");
        Equal((DeltaAckFrame)null, mirror.Ack(), "nor recorded as arrived");
        // The same slot named by several generations takes one place.
        PlanFrame same = new PlanFrame { Flags = 1, Sequence = 2, Entered = new ulong[] { 1 << 16, (1 << 16) | 1, (1 << 16) | 2 }, Left = new ulong[0] };
        Applied a = mirror.Apply(same, 1);
        True(a.WasApplied, "one slot fits");
        Equal(1, mirror.Count, "one occupant");
        True(mirror.Contains(new SlotKey(1, 2)), "the last generation named");
        mirror.Insert(new SlotKey(2, 0));
        Refused("limit", () => mirror.Insert(new SlotKey(3, 0)));
        mirror.Insert(new SlotKey(2, 5));
        Equal(2, mirror.Count, "a reuse at the limit replaces");
    }

    /// DELTA-13, DELTA-18.
    static void DeltaStaleAndFlow()
    {
        DeltaMirror mirror = new DeltaMirror();
        mirror.Apply(new PlanFrame { Flags = 1, Sequence = 1, Entered = new ulong[] { (4 << 16) | 1 }, Left = new ulong[0] }, 1);
        Applied a = mirror.Apply(new PlanFrame { Flags = 2, Sequence = 2, BaselineSeq = 1, Entered = new ulong[0], Left = new ulong[] { 4 << 16 } }, 1);
        Equal(1, a.StaleRefs, "another generation's retraction is refused");
        Equal(1, mirror.Count, "and the occupant stays");
        // Flow control: a silent subscriber is throttled to one send per keepalive.
        DeltaBaseline b = new DeltaBaseline(8, RecoveryPolicy.AckRecovery, new FlowControl { StalledAfter = 100, KeepaliveEvery = 50 }, true);
        True(b.ShouldSend(0), "a joiner is not born stalled");
        True(b.ShouldSend(100) && !b.Stalled(100), "silent for exactly the limit is not a stall");
        True(b.Stalled(101), "past it is");
        True(b.ShouldSend(101), "one keepalive");
        True(!b.ShouldSend(120), "then throttled");
        True(b.ShouldSend(151), "until the next keepalive");
        Equal(AgreementKind.Unchecked, b.ObserveAckAt(1, 0, 0, 200).Kind, "the resume signal starts a fresh epoch");
        True(!b.Stalled(200), "resumed");
        // Time going backwards never underflows.
        True(!b.Stalled(0), "an earlier now is no stall");
    }

    /// DELTA-8.
    static void SlotAllocators()
    {
        SlotAllocator a = new SlotAllocator(3, new ReusePolicy());
        SlotKey k0 = a.Allocate().Value;
        SlotKey k1 = a.Allocate().Value;
        SlotKey k2 = a.Allocate().Value;
        Equal(2u, k2.Index, "in order");
        Equal((SlotKey?)null, a.Allocate(), "full");
        True(a.Free(k1) && !a.Free(k1), "freed once");
        SlotKey again = a.Allocate().Value;
        Equal(1u, again.Index, "the lowest free slot");
        Equal((ushort)1, again.Generation, "a reuse bumps the generation");
        True(!a.IsLive(k1) && a.IsLive(again) && a.IsLive(k0), "the old key is dead");
        Equal((SlotKey?)null, a.AllocateAt(5), "outside the capacity");
        SlotAllocator f = new SlotAllocator(10, new ReusePolicy { Fifo = true, Quarantine = 1 });
        SlotKey f0 = f.Allocate().Value;
        SlotKey f1 = f.Allocate().Value;
        f.Free(f1);
        f.Free(f0);
        // Two wait, more than the quarantine of one: the first freed is reused first.
        SlotKey r = f.Allocate().Value;
        Equal(1u, r.Index, "first freed, first reused");
        SlotKey n = f.Allocate().Value;
        Equal(2u, n.Index, "one waiting is quarantined: a fresh slot");
        SlotAllocator g = new SlotAllocator(1, new ReusePolicy());
        for (int i = 0; i < 65537; i++)
        {
            g.Free(g.Allocate().Value);
        }
        Equal((ushort)1, g.Allocate().Value.Generation, "the generation wraps at 65,535");
    }

    // ---- Datagram.cs ----

    /// DG-5.
    static void Quantize()
    {
        Equal(1L, DatagramMath.Quantize(0.5, 1f), "halves away from zero");
        Equal(-1L, DatagramMath.Quantize(-0.5, 1f), "on both sides");
        Equal(0L, DatagramMath.Quantize(0.49999999999999994, 1f), "just below a half");
        Equal(-2L, DatagramMath.Quantize(-0.02, 0.01f), "negative");
        Equal(0L, DatagramMath.Quantize(double.NaN, 0.01f), "NaN");
        Equal(0L, DatagramMath.Quantize(double.PositiveInfinity, 0.01f), "infinity");
        Equal(0L, DatagramMath.Quantize(1.0, 0f), "a quotient that is not finite");
        Equal(long.MaxValue, DatagramMath.Quantize(1e300, 0.01f), "saturates up");
        Equal(long.MinValue, DatagramMath.Quantize(-1e300, 0.01f), "saturates down");
        Equal(3L, DatagramMath.Quantize(2.5, 1f), "2.5 rounds to 3");
        Equal((ushort)0x2345, DatagramMath.SpawnTag(0x12345), "the low 16 bits");
    }

    /// A schema of fixed lengths, enough for the machines: they never call its codecs.
    sealed class TestDatagram : IDatagramSchema
    {
        public string DatagramName { get { return "datagram"; } }
        public string SpawnName { get { return "spawn"; } }
        public string DespawnName { get { return "despawn"; } }
        public string FullFrameName { get { return "full_frame"; } }
        public string AckName { get { return "datagram_ack"; } }
        public byte MaskX { get { return 1; } }
        public byte MaskY { get { return 2; } }
        public byte MaskZ { get { return 4; } }
        public byte MaskComponents { get { return 8; } }
        public int MaxHeaderLen { get { return 10; } }
        public int UpdateLen(UpdateFrame update, bool hasPrev, ulong prev) { return 20; }
        public void CheckUpdate(UpdateFrame update) { }
        public DatagramFrame DecodeDatagram(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeDatagram(DatagramFrame d) { throw new NotSupportedException(); }
        public SpawnFrame DecodeSpawn(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeSpawn(SpawnFrame f) { throw new NotSupportedException(); }
        public DespawnFrame DecodeDespawn(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeDespawn(DespawnFrame f) { throw new NotSupportedException(); }
        public FullFrameFrame DecodeFullFrame(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeFullFrame(FullFrameFrame f) { throw new NotSupportedException(); }
        public DatagramAckFrame DecodeAck(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeAck(DatagramAckFrame f) { throw new NotSupportedException(); }
    }

    static WorldOp Spawn(ulong id, double x)
    {
        return new WorldOp { Kind = WorldOpKind.Spawn, Id = id, X = x, Components = new List<KeyValuePair<byte, byte[]>> { new KeyValuePair<byte, byte[]>(1, new byte[] { 7 }) } };
    }

    static WorldOp Move(ulong id, double x)
    {
        return new WorldOp { Kind = WorldOpKind.Move, Id = id, X = x };
    }

    /// DG-11, DG-14, DG-15, GEN-3.
    static void DatagramRoundTrip()
    {
        TestDatagram schema = new TestDatagram();
        // Room for two updates a datagram: 10 + 2 * 20 bytes.
        Subscription sub = new Subscription(schema, new SubscriptionConfig { Precision = 0.01f, MaxDatagram = 50, SentWindow = 16 });
        ReplicaTable table = new ReplicaTable(ReplicaLimits.Default);
        TickOutput t1 = sub.Tick(1, 0, new List<WorldOp> { Spawn(1, 0), Spawn(2, 0), Spawn(3, 0) });
        Equal(3, t1.Stream.Count, "three spawns");
        foreach (StreamFrame f in t1.Stream)
        {
            table.ApplyStream(f);
        }
        Equal(3, table.Count, "held");
        TickOutput t2 = sub.Tick(2, 5, new List<WorldOp> { Move(1, 1), Move(2, 1), Move(3, 1) });
        Equal(2, t2.Datagrams.Count, "split in two");
        Equal(2u, t2.Datagrams[0].Header.Parts, "each names the count");
        Equal(t2.Datagrams[0].Header.Frame + 1, t2.Datagrams[1].Header.Frame, "numbered on");
        // The second part first: held, the tick is not whole.
        DatagramSummary s = table.Receive(t2.Datagrams[1]);
        True(s.Held && s.Released == 0, "held until whole");
        Equal(0UL, table.InputAck, "no input ack before the tick is whole");
        s = table.Receive(t2.Datagrams[0]);
        Equal(2, s.Released, "both released");
        Equal(3, s.Applied, "three updates");
        Equal(5UL, table.InputAck, "the input ack of the whole tick");
        Equal(100L, table.Entity(1).Position[0], "x in steps");
        List<DatagramAckFrame> acks = table.TakeAcks();
        Equal(2, acks.Count, "both acked");
        foreach (DatagramAckFrame a in acks)
        {
            AckSummary r = sub.OnAck(a);
            True(r.Known, "known");
        }
        TickOutput t3 = sub.Tick(3, 5, new List<WorldOp>());
        Equal(1, t3.Datagrams.Count, "a tick always sends a datagram");
        Equal(0, t3.Datagrams[0].Updates.Length, "nothing unacknowledged is left");
        // A replayed old datagram is stale.
        s = table.Receive(t2.Datagrams[0]);
        Equal(2, s.SkippedStale, "stale updates skipped");
        Refused("world", () => sub.Tick(3, 0, new List<WorldOp>()));
        Refused("world", () => sub.Tick(4, 0, new List<WorldOp> { Move(99, 0) }));
        // A respawn gets a new spawn tag: an update for the old occupant is skipped.
        TickOutput t5 = sub.Tick(5, 5, new List<WorldOp> { new WorldOp { Kind = WorldOpKind.Despawn, Id = 1 }, Move(2, 2) });
        TickOutput t6 = sub.Tick(6, 5, new List<WorldOp> { Spawn(1, 3) });
        foreach (StreamFrame f in t5.Stream)
        {
            table.ApplyStream(f);
        }
        foreach (StreamFrame f in t6.Stream)
        {
            table.ApplyStream(f);
        }
        DatagramFrame oldTag = new DatagramFrame
        {
            Header = new DatagramHeader { Frame = 100, Tick = 6, StreamTick = 6, Parts = 1 },
            Updates = new[] { new UpdateFrame { Id = 1, SpawnTag = 1, Mask = 1, X = 9 } },
        };
        s = table.Receive(oldTag);
        Equal(1, s.SkippedSpawnTag, "the spawn tag of another occupant");
        Equal(300L, table.Entity(1).Position[0], "untouched");
    }

    /// DG-21, DG-22, DG-18, DG-19.
    static void ReplicaWholeTicks()
    {
        ReplicaTable table = new ReplicaTable(ReplicaLimits.Default);
        table.ApplyStream(new StreamFrame { Kind = StreamKind.Spawn, Spawn = new SpawnFrame { Tick = 1, Id = 7, Components = new ComponentChange[0] } });
        // A datagram naming a stream frame not yet applied waits for it.
        DatagramFrame d = new DatagramFrame
        {
            Header = new DatagramHeader { Frame = 1, Tick = 3, InputAck = 9, StreamTick = 2, Parts = 1 },
            Updates = new[] { new UpdateFrame { Id = 7, SpawnTag = 1, Mask = 1, X = 4 } },
        };
        DatagramSummary s = table.Receive(d);
        True(s.Held, "waits for stream tick 2");
        Equal(0UL, table.InputAck, "not yet");
        s = table.ApplyStream(new StreamFrame { Kind = StreamKind.Despawn, Despawn = new DespawnFrame { Tick = 2, Id = 99 } });
        Equal(1, s.Released, "released by the stream frame");
        Equal(9UL, table.InputAck, "the input ack now describes the table");
        Equal(4L, table.Entity(7).Position[0], "applied");
        // A stream frame from before the last one applied is refused.
        s = table.ApplyStream(new StreamFrame { Kind = StreamKind.Despawn, Despawn = new DespawnFrame { Tick = 1, Id = 7 } });
        Equal(1, s.Refused, "out of order");
        True(table.Entity(7) != null, "and ignored");
        uint h = table.StateHash();
        Equal(h, table.StateHash(), "the hash is of the state");
        table.ApplyStream(new StreamFrame { Kind = StreamKind.FullFrame, FullFrame = new FullFrameFrame { Tick = 5, Entities = new FullEntityFrame[0] } });
        Equal(0, table.Count, "a full frame replaces everything");
        True(h != table.StateHash(), "the hash follows");
    }

    /// DG-23.
    static void ReplicaLimitsHold()
    {
        ReplicaTable table = new ReplicaTable(new ReplicaLimits { MaxEntities = 2, MaxHeld = 3, MaxComponentBytes = 200, MaxHeldBytes = 8L << 20 });
        for (ulong id = 1; id <= 3; id++)
        {
            DatagramSummary r = table.ApplyStream(new StreamFrame { Kind = StreamKind.Spawn, Spawn = new SpawnFrame { Tick = 1, Id = id, Components = new ComponentChange[0] } });
            Equal(id == 3 ? 1 : 0, r.Refused, "the entity limit, id " + id);
        }
        Equal(2, table.Count, "at most two");
        // Datagrams for ticks never whole (a part missing) are held at most three.
        int givenUp = 0;
        for (ulong t = 10; t < 20; t++)
        {
            DatagramSummary r = table.Receive(new DatagramFrame { Header = new DatagramHeader { Frame = t, Tick = t, Parts = 2 }, Updates = new UpdateFrame[0] });
            givenUp += r.GivenUp;
        }
        Equal(3, table.HeldDatagrams, "held at most max_held");
        Equal(7, givenUp, "the oldest given up");
        // Component bytes: 64 + 100 fits in 200, a second such component does not.
        ComponentChange big = new ComponentChange { Type = 1, Data = new byte[100] };
        DatagramFrame d1 = new DatagramFrame
        {
            Header = new DatagramHeader { Frame = 30, Tick = 30, Parts = 1 },
            Updates = new[] { new UpdateFrame { Id = 1, SpawnTag = 1, Mask = 8, Components = new[] { big } } },
        };
        DatagramSummary s = table.Receive(d1);
        Equal(1, s.Applied, "fits");
        Equal(164L, table.ComponentBytes, "counted with the overhead");
        table.TakeAcks();
        DatagramFrame d2 = new DatagramFrame
        {
            Header = new DatagramHeader { Frame = 31, Tick = 31, Parts = 1 },
            Updates = new[] { new UpdateFrame { Id = 2, SpawnTag = 1, Mask = 8, Components = new[] { big } } },
        };
        s = table.Receive(d2);
        Equal(1, s.SkippedOverBytes, "over the byte limit");
        Equal(0, table.TakeAcks().Count, "and not acked");
        Equal(164L, table.ComponentBytes, "nothing of it applied");
    }

    /// MaxHeldBytes, with the figures of the Rust table's test: ten updates each carrying a
    /// 100-byte component cost 256 + 10 × (96 + 100 + 64) = 2,856; under 10,000, three ticks are
    /// held and each further one gives up the oldest.
    static void ReplicaHeldBytesHold()
    {
        ReplicaLimits limits = ReplicaLimits.Default;
        limits.MaxHeldBytes = 10000;
        ReplicaTable table = new ReplicaTable(limits);
        Func<ulong, DatagramFrame> datagram = t =>
        {
            UpdateFrame[] updates = new UpdateFrame[10];
            for (int i = 0; i < updates.Length; i++)
            {
                ComponentChange c = new ComponentChange { Type = 1, Data = new byte[100] };
                updates[i] = new UpdateFrame { Id = (ulong)i, SpawnTag = 1, Mask = 8, Components = new[] { c } };
            }
            // Two parts, and only one sent: never whole.
            return new DatagramFrame { Header = new DatagramHeader { Frame = t, Tick = t, Parts = 2 }, Updates = updates };
        };
        Equal(2856L, ReplicaLimits.HeldCost(datagram(1)), "the held cost");
        int givenUp = 0;
        for (ulong t = 1; t <= 20; t++)
        {
            givenUp += table.Receive(datagram(t)).GivenUp;
            True(table.HeldBytes <= 10000, "within the bound at tick " + t);
        }
        Equal(3, table.HeldDatagrams, "three ticks held");
        Equal(8568L, table.HeldBytes, "their cost");
        Equal(17, givenUp, "the oldest given up");
    }

    // ---- Baseline.cs ----

    /// Components are byte arrays, a component's bits its bytes.
    sealed class TestBaseline : IBaselineSchema<byte[]>
    {
        public string SnapshotFrame { get { return "snapshot"; } }
        public string AckFrame { get { return "snapshot_ack"; } }
        public int ComponentTypes { get { return 2; } }
        public int AckWindow { get { return 4; } }
        public int MaxLostPerSnapshot { get { return 2; } }
        public int HeaderBytes { get { return 3; } }
        public int CountBits { get { return 8; } }
        public int EntryHeadBits { get { return 8; } }
        public int LostBits { get { return 8; } }
        public byte[] ComponentBits(int index, byte[] value) { return value; }
        public long ComponentBitLen(int index, byte[] value) { return value.Length * 8L; }
        public SnapshotFrame<byte[]> DecodeSnapshot(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeSnapshot(SnapshotFrame<byte[]> s) { throw new NotSupportedException(); }
        public ushort DecodeAck(byte[] bytes) { throw new NotSupportedException(); }
        public byte[] EncodeAck(ushort sequence) { throw new NotSupportedException(); }
    }

    /// NB-7, NB-8, NB-11, NB-12.
    static void BaselineRoundTrip()
    {
        TestBaseline schema = new TestBaseline();
        Scene<byte[]> scene = new Scene<byte[]>(schema);
        // Budget: 3 header bytes + 4 body bytes = 32 bits: the counts (8) and one 3-byte entry.
        SnapshotWriter<byte[]> writer = new SnapshotWriter<byte[]>(schema, 5, 7, 65535, new BaselineLimits { MaxOwedLost = 1 });
        SnapshotClient<byte[]> client = new SnapshotClient<byte[]>(schema, 16);
        scene.Spawn(new EntityId(1, 0), null);
        scene.Set(1, 0, new byte[] { 1, 1 });
        scene.Spawn(new EntityId(2, 0), 5);
        scene.Set(2, 0, new byte[] { 2, 2 });
        SnapshotFrame<byte[]> s1 = writer.Write(scene);
        Equal((ushort)65535, s1.Sequence, "from the first sequence");
        Equal(1, s1.Entries.Length, "one entry fits the budget");
        Equal(2u, s1.Entries[0].Gap, "the owned entity goes first");
        True(client.Receive(s1).Applied, "applied");
        writer.OnAck(client.TakeAcks()[0]);
        SnapshotFrame<byte[]> s2 = writer.Write(scene);
        Equal((ushort)0, s2.Sequence, "the sequence wraps");
        Equal(1, s2.Entries.Length, "the other entity now");
        Equal(1u, s2.Entries[0].Gap, "slot 1");
        True(client.Receive(s2).Applied, "applied");
        writer.OnAck(0);
        Equal(0, writer.Write(scene).Entries.Length, "everything confirmed: nothing to say");
        Equal(2, client.Count, "the client holds both");
        // A death is reported until confirmed, by entity: a respawn in the slot is alive.
        scene.Despawn(2);
        SnapshotFrame<byte[]> s4 = writer.Write(scene);
        Equal(1, s4.Lost.Length, "reported lost");
        SnapshotSummary r = client.Receive(s4);
        Equal(1, r.Removed, "removed");
        SnapshotFrame<byte[]> s5 = writer.Write(scene);
        Equal(1, s5.Lost.Length, "again until confirmed");
        writer.OnAck(s5.Sequence);
        Equal(0, writer.Write(scene).Lost.Length, "confirmed");
        // The owed debt is bounded: two unconfirmed deaths pass a limit of one.
        scene.Despawn(1);
        scene.Spawn(new EntityId(3, 0), null);
        scene.Set(3, 1, new byte[] { 3 });
        Equal(1, writer.Write(scene).Lost.Length, "slot 1 owed");
        scene.Despawn(3);
        Refused("limit", () => writer.Write(scene));
        Equal(2, writer.Baseline.OwedLost, "stalled, nothing forgotten");
    }

    /// NB-16, NB-17, NB-4, NB-14.
    static void BaselineClientRules()
    {
        TestBaseline schema = new TestBaseline();
        SnapshotClient<byte[]> client = new SnapshotClient<byte[]>(schema, 2);
        SnapshotFrame<byte[]> one = new SnapshotFrame<byte[]>
        {
            Sequence = 10,
            Lost = new EntityId[0],
            Entries = new[]
            {
                new WireEntry<byte[]> { Gap = 0, Generation = 1, Components = new[] { new byte[] { 9 }, null } },
                new WireEntry<byte[]> { Gap = 0, Generation = 1, Components = new byte[][] { null, new byte[] { 8 } } },
                new WireEntry<byte[]> { Gap = 0, Generation = 1, Components = new byte[][] { null, null } },
            },
        };
        SnapshotSummary s = client.Receive(one);
        Equal(2, s.Created, "two created");
        Equal(1, s.Refused, "the third past max_entities");
        True(client.Receive(one).Stale, "the same sequence again is stale");
        Equal(0, client.TakeAcks().Count - 1, "acked once");
        SnapshotFrame<byte[]> far = new SnapshotFrame<byte[]>
        {
            Sequence = 11,
            Lost = new EntityId[0],
            Entries = new[]
            {
                new WireEntry<byte[]> { Gap = 1u << 23, Generation = 0, Components = new byte[][] { null, null } },
                new WireEntry<byte[]> { Gap = 1u << 23, Generation = 0, Components = new byte[][] { null, null } },
            },
        };
        True(client.Receive(far).Malformed, "slots past 24 bits");
        Equal(0, client.TakeAcks().Count, "not acked");
        SnapshotFrame<byte[]> lost = new SnapshotFrame<byte[]>
        {
            Sequence = 12,
            Lost = new[] { new EntityId(0, 2), new EntityId(1, 1) },
            Entries = new WireEntry<byte[]>[0],
        };
        s = client.Receive(lost);
        Equal(1, s.Removed, "by entity");
        Equal(1, s.NotOurs, "another generation stays");
        True(Sequences.Newer(0, 65535) && !Sequences.Newer(65535, 0) && !Sequences.Newer(5, 5), "wrapping sequences");
        byte[] canon = client.CanonicalBytes();
        Equal("000000000101" + "09", Json.ToHex(canon), "slot, generation, mask, bits");
    }
}
