// Tests of Sessions/Acked.cs, InputSchedule.cs and Tier.cs over a small test schema of their own
// (a record is one int; a change sets it; a frame is a plain little-endian layout), so that the
// generic machines are tested without the generated codec. The reference schema is tested by
// the conformance vectors (streams/acked), through the testee. Found by RuntimeTests.Main
// through the `Tests` list.

using System;
using System.Collections.Generic;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class AckedTests
{
    sealed class Rec
    {
        public int V;
    }

    /// A change as a struct, as the generated bindings' staged changes are.
    struct Chg
    {
        public ushort Eid;
        public int V;
    }

    /// A test schema: small rings so that their limits are reached in a few frames. Frame:
    /// u32 tick, u32 base, u32 last_seq, u8 input_buffer, u8 flags (1 keyframe, 2 check),
    /// [u32 check], u16 removed, u16 changes, removed u16s, changes (u16 eid, i32 v), u8 events,
    /// [u32 first serial], events u32. Ack: u32 tick, u8 request, u8 inputs, [u32 first seq],
    /// inputs u32 (the tick each aims at).
    sealed class TestSchema : IAckedSchema<Rec, Chg, uint, uint>
    {
        public int SentRing { get { return 4; } }
        public int HeldRing { get { return 8; } }
        public ulong EventTtl { get { return 3; } }
        public ulong CheckEvery { get { return 3; } }
        public int ReliableAbove { get { return 40; } }

        public string FrameName { get { return "test"; } }
        public string AckName { get { return "test_ack"; } }

        public bool Diff(int eid, Rec b, Rec next, uint tick, out Chg change)
        {
            change = new Chg { Eid = (ushort)eid, V = next.V };
            return b == null || b.V != next.V;
        }

        public int ChangeEid(Chg c)
        {
            return c.Eid;
        }

        public Rec Apply(Rec b, Chg c, uint tick)
        {
            if (c.V < 0)
            {
                throw new Inapplicable("a negative value");
            }
            return new Rec { V = c.V };
        }

        public bool SameRecord(Rec a, Rec b)
        {
            return a.V == b.V;
        }

        public uint HashRecord(Rec r, uint h)
        {
            uint v = unchecked((uint)r.V);
            for (int i = 0; i < 4; i++)
            {
                h = Fnv.Byte(h, (byte)(v >> (8 * i)));
            }
            return h;
        }

        public uint? Measured(Rec r)
        {
            return null;
        }

        public bool? PoseFull(Rec r)
        {
            return null;
        }

        public byte[] EncodeFrame(AckedFrame<Chg, uint> f)
        {
            Writer w = new Writer(64);
            w.U32(f.Tick, false);
            w.U32(f.BaseTick, false);
            w.U32(f.LastSeq, false);
            w.U8(f.InputBuffer);
            w.U8((byte)((f.Keyframe ? 1 : 0) | (f.Check.HasValue ? 2 : 0)));
            if (f.Check.HasValue)
            {
                w.U32(f.Check.Value, false);
            }
            w.U16((ushort)f.Removed.Length, false);
            w.U16((ushort)f.Changes.Length, false);
            foreach (ushort e in f.Removed)
            {
                w.U16(e, false);
            }
            foreach (Chg c in f.Changes)
            {
                w.U16(c.Eid, false);
                w.I32(c.V, false);
            }
            w.U8((byte)f.Events.Length);
            if (f.Events.Length > 0)
            {
                w.U32(f.FirstSerial, false);
            }
            foreach (uint e in f.Events)
            {
                w.U32(e, false);
            }
            return w.ToArray();
        }

        public void DecodeFrameInto(byte[] bytes, AckedFrame<Chg, uint> f)
        {
            Reader r = new Reader(bytes);
            f.Tick = r.U32(false);
            f.BaseTick = r.U32(false);
            f.LastSeq = r.U32(false);
            f.InputBuffer = r.U8();
            byte flags = r.U8();
            f.Keyframe = (flags & 1) != 0;
            f.Check = (flags & 2) != 0 ? r.U32(false) : (uint?)null;
            int nr = r.Count(r.U16(false), 2);
            int nc = r.Count(r.U16(false), 6);
            f.Removed = new ushort[nr];
            for (int i = 0; i < nr; i++)
            {
                f.Removed[i] = r.U16(false);
            }
            f.Changes = new Chg[nc];
            for (int i = 0; i < nc; i++)
            {
                f.Changes[i] = new Chg { Eid = r.U16(false), V = r.I32(false) };
            }
            int ne = r.U8();
            f.FirstSerial = ne > 0 ? r.U32(false) : 0;
            ne = r.Count((ulong)ne, 4);
            f.Events = new uint[ne];
            for (int i = 0; i < ne; i++)
            {
                f.Events[i] = r.U32(false);
            }
            r.Finish();
        }

        public byte[] EncodeAck(AckContent<uint> a)
        {
            Writer w = new Writer(16);
            w.U32(a.AckTick, false);
            w.U8((byte)(a.KeyframeRequest ? 1 : 0));
            w.U8((byte)a.Inputs.Length);
            if (a.Inputs.Length > 0)
            {
                w.U32(a.FirstSeq, false);
            }
            foreach (uint i in a.Inputs)
            {
                w.U32(i, false);
            }
            return w.ToArray();
        }

        public AckContent<uint> DecodeAck(byte[] bytes)
        {
            Reader r = new Reader(bytes);
            AckContent<uint> a = new AckContent<uint> { AckTick = r.U32(false), KeyframeRequest = r.U8() != 0 };
            int n = r.U8();
            a.FirstSeq = n > 0 ? r.U32(false) : 0;
            n = r.Count((ulong)n, 4);
            a.Inputs = new uint[n];
            for (int i = 0; i < n; i++)
            {
                a.Inputs[i] = r.U32(false);
            }
            r.Finish();
            return a;
        }

        public uint InputTick(uint input)
        {
            return input;
        }
    }

    static readonly TestSchema S = new TestSchema();

    /// A sink that records what it is handed.
    sealed class Sink : IInputSink<uint>
    {
        public readonly List<uint> Seqs = new List<uint>();

        public void Submit(uint seq, uint tick, uint input, ulong current)
        {
            Seqs.Add(seq);
        }

        public int Pending()
        {
            return Seqs.Count;
        }
    }

    static ServerEntry<Rec>[] World(params int[] eidValue)
    {
        ServerEntry<Rec>[] s = new ServerEntry<Rec>[eidValue.Length / 2];
        for (int i = 0; i < s.Length; i++)
        {
            s[i] = new ServerEntry<Rec>((ushort)eidValue[2 * i], 1, new Rec { V = eidValue[2 * i + 1] });
        }
        return s;
    }

    static uint Check(ServerEntry<Rec>[] s)
    {
        return AckedDelta.ServerCheck(S, s);
    }

    /// <summary>This file's tests, run by RuntimeTests.Main.</summary>
    public static readonly KeyValuePair<string, Action>[] Tests =
    {
        new KeyValuePair<string, Action>("acked_round_trip", RoundTrip),
        new KeyValuePair<string, Action>("acked_drops_stale_and_unknown_base", Drops),
        new KeyValuePair<string, Action>("acked_events_once_and_ttl", EventsOnce),
        new KeyValuePair<string, Action>("acked_check_mismatch_asks_keyframe", Mismatch),
        new KeyValuePair<string, Action>("acked_held_ring_bound", HeldRing),
        new KeyValuePair<string, Action>("acked_hostile_bytes", Hostile),
        new KeyValuePair<string, Action>("acked_inapplicable_applies_nothing", InapplicableFrame),
        new KeyValuePair<string, Action>("acked_inputs_once", InputsOnce),
        new KeyValuePair<string, Action>("ack_writer", Writer_),
        new KeyValuePair<string, Action>("input_schedule_window", Schedule),
        new KeyValuePair<string, Action>("tier_boundary", Tier),
    };

    /// Frames onto acked bases reach the server's state: the decoder's hash equals the server's
    /// check of every state sent, the report tells changes and removals against the last frame
    /// shown, and the check every CHECK_EVERY frames passes.
    /// ACK-19, ACK-34, ACK-24, CHECK-2.
    static void RoundTrip()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        ServerEntry<Rec>[][] states =
        {
            World(1, 10, 2, 20),
            World(1, 11, 2, 20, 300, 7),
            World(2, 21, 300, 7),
            World(2, 21, 300, 8, 65535, 1),
            World(65535, 2),
        };
        for (int i = 0; i < states.Length; i++)
        {
            uint tick = (uint)(i + 1);
            Outgoing<Chg, uint> o = enc.Encode(tick, states[i], new uint[0]);
            Equal(i == 0, o.Frame.Keyframe, "frame " + tick + " keyframe");
            Equal((i + 1) % 3 == 0, o.Frame.Check.HasValue, "frame " + tick + " check");
            Delivery<uint> d = dec.Deliver(o.Bytes);
            Equal(DeliveryKind.Shown, d.Kind, "frame " + tick + " shown");
            Equal(Check(states[i]), dec.StateHash(), "frame " + tick + " hash");
            if (o.Frame.Check.HasValue)
            {
                Equal(true, d.Report.Check == true, "frame " + tick + " check passes");
            }
            if (tick == 3)
            {
                Equal("2", string.Join(" ", d.Report.Changed), "changed at 3");
                Equal("1", string.Join(" ", d.Report.Gone), "gone at 3");
            }
            Equal(tick, dec.AckTick, "ack tick");
            Equal(AckVerdict.Taken, enc.OnAck(tick, new AckContent<uint> { AckTick = dec.AckTick }), "ack " + tick);
        }
        // Five frames: the third carried the only check.
        Equal(1UL, dec.Counters.ChecksPassed, "checks passed");
        Equal(0UL, dec.Counters.ChecksFailed, "checks failed");
    }

    /// ACK-30, ACK-31.
    static void Drops()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        byte[] f1 = enc.Encode(1, World(1, 1), new uint[0]).Bytes;
        enc.OnAck(1, new AckContent<uint> { AckTick = 1 });
        byte[] f2 = enc.Encode(2, World(1, 2), new uint[0]).Bytes;
        // Frame 2 names base 1, which the decoder never got: dropped without a word.
        Delivery<uint> d = dec.Deliver(f2);
        Equal(DeliveryKind.UnknownBase, d.Kind, "unknown base");
        Equal(1u, d.BaseTick, "the base named");
        Equal(Fnv.Basis, dec.StateHash(), "nothing shown");
        Equal(DeliveryKind.Shown, dec.Deliver(f1).Kind, "frame 1");
        Equal(DeliveryKind.Shown, dec.Deliver(f2).Kind, "frame 2 now");
        Equal(DeliveryKind.Stale, dec.Deliver(f1).Kind, "frame 1 again is stale");
        Equal(DeliveryKind.Stale, dec.Deliver(f2).Kind, "frame 2 again is stale");
        Equal(2UL, dec.Counters.Stale, "stale counted");
        Equal(Check(World(1, 2)), dec.StateHash(), "state of frame 2");
    }

    /// ACK-23: an event goes again in each frame until one that carried it is acknowledged, or for
    /// at most EVENT_TTL frames; each is shown once (ACK-35).
    /// ACK-23, ACK-35.
    static void EventsOnce()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        ServerEntry<Rec>[] w = World(1, 1);
        Outgoing<Chg, uint> a = enc.Encode(1, w, new uint[] { 100, 101 });
        Outgoing<Chg, uint> b = enc.Encode(2, w, new uint[] { 102 });
        Equal(3, b.Frame.Events.Length, "unacked events carried again");
        Delivery<uint> da = dec.Deliver(a.Bytes);
        Equal("100 101", string.Join(" ", da.Report.Events), "first frame's events");
        Delivery<uint> db = dec.Deliver(b.Bytes);
        Equal("102", string.Join(" ", db.Report.Events), "only the new one shown");
        Equal("3", string.Join(" ", db.Report.EventSerials), "its serial");
        // Never acknowledged: after EVENT_TTL frames they expire.
        enc.Encode(3, w, new uint[0]);
        Outgoing<Chg, uint> d = enc.Encode(4, w, new uint[0]);
        Equal(1, d.Frame.Events.Length, "two expired after 3 frames");
        Equal(2UL, enc.Counters.EventsExpired, "expired counted");
        // Acknowledging frame 4 (which held event 3) stops it.
        enc.OnAck(4, new AckContent<uint> { AckTick = 4 });
        Equal(0, enc.Encode(5, w, new uint[0]).Frame.Events.Length, "acked events stop");
    }

    /// A check that does not match (a corrupted record) makes the decoder hold nothing,
    /// acknowledge nothing and ask for a keyframe, until a keyframe applies.
    /// ACK-36, ACK-13, ACK-26.
    static void Mismatch()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        ServerEntry<Rec>[] w = World(1, 1, 2, 2);
        for (uint t = 1; t <= 2; t++)
        {
            dec.Deliver(enc.Encode(t, w, new uint[0]).Bytes);
            enc.OnAck(t, new AckContent<uint> { AckTick = dec.AckTick });
        }
        int edited = 0;
        dec.Tamper((eid, r) => { r.V += 1000; edited++; });
        Equal(2, edited, "each record once, shared or not");
        Delivery<uint> d = dec.Deliver(enc.Encode(3, w, new uint[0]).Bytes);
        Equal(false, d.Report.Check == true, "the check fails");
        Equal(true, dec.KeyframeWanted, "a keyframe is wanted");
        Equal(0u, dec.AckTick, "acknowledges nothing");
        Equal(0, dec.HeldCount, "holds nothing");
        Equal(AckVerdict.KeyframeRequested, enc.OnAck(3, new AckContent<uint> { KeyframeRequest = true }), "request");
        // An ack from before the request is old.
        Equal(AckVerdict.Old, enc.OnAck(3, new AckContent<uint> { AckTick = 3 }), "old ack");
        Outgoing<Chg, uint> k = enc.Encode(4, w, new uint[0]);
        Equal(true, k.Frame.Keyframe, "a keyframe follows");
        Equal(DeliveryKind.Shown, dec.Deliver(k.Bytes).Kind, "keyframe shown");
        Equal(false, dec.KeyframeWanted, "recovered");
        Equal(Check(w), dec.StateHash(), "the server's state again");
    }

    /// ACK-29: the client holds the states of its last HELD_RING applied frames, by tick: never
    /// more, and a base older than them is unknown.
    /// ACK-29, ACK-1.
    static void HeldRing()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        enc.Encode(1, World(1, 0), new uint[0]);
        byte[] first = null;
        for (uint t = 1; t <= 30; t++)
        {
            Outgoing<Chg, uint> o = enc.Encode(t + 1, World(1, (int)t), new uint[0]);
            if (t == 1)
            {
                first = o.Bytes;
            }
            dec.Deliver(o.Bytes);
            True(dec.HeldCount <= S.HeldRing, "held " + dec.HeldCount);
            enc.OnAck(t + 1, new AckContent<uint> { AckTick = dec.AckTick });
            True(enc.KeptCount <= S.SentRing, "kept " + enc.KeptCount);
        }
        Equal(S.HeldRing, dec.HeldCount, "a full ring");
        // A frame onto tick 2 (long gone from the ring) is unknown, not applied.
        Writer w = new Writer(32);
        w.U32(100, false);
        w.U32(2, false);
        w.U32(0, false);
        w.U8(0);
        w.U8(0);
        w.U16(0, false);
        w.U16(0, false);
        w.U8(0);
        Equal(DeliveryKind.UnknownBase, dec.Deliver(w.ToArray()).Kind, "a base no longer held");
        True(first != null, "frame kept");
    }

    /// Any bytes: a delivery, never an exception, and nothing shown from them.
    /// GEN-5, ACK-19.
    static void Hostile()
    {
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        Random rng = new Random(21);
        for (int i = 0; i < 2000; i++)
        {
            byte[] b = new byte[rng.Next(0, 40)];
            rng.NextBytes(b);
            Delivery<uint> d = dec.Deliver(b);
            True(d.Kind != DeliveryKind.Shown || d.Report != null, "a report when shown");
        }
        Equal(0, dec.Deliver(new byte[0]).Kind == DeliveryKind.Undecodable ? 0 : 1, "empty is undecodable");
        Equal(true, dec.Counters.Undecodable > 0, "undecodable counted");
    }

    /// A frame whose change cannot apply changes nothing (not applied in part).
    /// ACK-32.
    static void InapplicableFrame()
    {
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, new Sink());
        AckedDecoder<Rec, Chg, uint, uint> dec = new AckedDecoder<Rec, Chg, uint, uint>(S);
        dec.Deliver(enc.Encode(1, World(1, 1, 2, 2), new uint[0]).Bytes);
        uint before = dec.StateHash();
        AckedFrame<Chg, uint> f = new AckedFrame<Chg, uint>
        {
            Tick = 2,
            BaseTick = 1,
            Changes = new[] { new Chg { Eid = 1, V = 5 }, new Chg { Eid = 2, V = -1 } },
        };
        Delivery<uint> d = dec.Deliver(S.EncodeFrame(f));
        Equal(DeliveryKind.Inapplicable, d.Kind, "refused");
        Equal("a negative value", d.Why, "why");
        Equal(before, dec.StateHash(), "nothing applied");
        f.Changes = new Chg[0];
        f.Removed = new ushort[] { 9 };
        Equal("a removed id the base does not hold", dec.Deliver(S.EncodeFrame(f)).Why, "removed not held");
        f.Removed = new ushort[] { 1, 1 };
        Equal(DeliveryKind.Inapplicable, dec.Deliver(S.EncodeFrame(f)).Kind, "removed twice");
        f.Removed = new ushort[0];
        f.Changes = new[] { new Chg { Eid = 2, V = 5 }, new Chg { Eid = 1, V = 5 } };
        Equal("changes not in ascending id order", dec.Deliver(S.EncodeFrame(f)).Why, "descending");
        f.Changes = new[] { new Chg { Eid = 2, V = 5 } };
        Equal(DeliveryKind.Shown, dec.Deliver(S.EncodeFrame(f)).Kind, "a good frame still applies");
        Equal(Check(World(1, 1, 2, 5)), dec.StateHash(), "after it");
    }

    /// Each input is taken once by sequence number; past MaxBufferedInputs they are dropped.
    /// ACK-25, ACK-12.
    static void InputsOnce()
    {
        Sink sink = new Sink();
        AckedEncoder<Rec, Chg, uint, uint> enc = new AckedEncoder<Rec, Chg, uint, uint>(S, sink);
        enc.OnAck(0, new AckContent<uint> { FirstSeq = 1, Inputs = new uint[] { 5, 6, 7 } });
        enc.OnAck(0, new AckContent<uint> { FirstSeq = 2, Inputs = new uint[] { 6, 7, 8 } });
        Equal("1 2 3 4", string.Join(" ", sink.Seqs), "each once");
        Equal(2UL, enc.Counters.InputsRepeated, "repeats counted");
        // A first sequence near 2^32: the inputs past it are not taken.
        enc.OnAck(0, new AckContent<uint> { FirstSeq = uint.MaxValue, Inputs = new uint[] { 1, 2 } });
        Equal(uint.MaxValue, enc.LastSeq, "the last u32 sequence");
        Sink full = new Sink();
        AckedEncoder<Rec, Chg, uint, uint> e2 = new AckedEncoder<Rec, Chg, uint, uint>(S, full);
        uint[] many = new uint[255];
        for (uint s = 0; s < 2; s++)
        {
            e2.OnAck(0, new AckContent<uint> { FirstSeq = 1 + s * 255, Inputs = many });
        }
        Equal(AckedEncoder<Rec, Chg, uint, uint>.MaxBufferedInputs, full.Seqs.Count, "at most MaxBufferedInputs");
        Equal(254UL, e2.Counters.InputsOverflow, "the rest dropped");
    }

    static void Writer_()
    {
        AckWriter<uint> w = new AckWriter<uint>(0);
        Equal(1, w.Keep, "keep clamped up to 1");
        Equal(255, new AckWriter<uint>(1000).Keep, "keep clamped down to 255");
        AckWriter<uint> x = new AckWriter<uint>(3);
        for (uint i = 10; i < 15; i++)
        {
            x.Push(i);
        }
        AckContent<uint> a = x.Frame(7, false);
        Equal(3u, a.FirstSeq, "the oldest kept");
        Equal("12 13 14", string.Join(" ", a.Inputs), "the newest 3");
        Equal(7u, a.AckTick, "ack tick");
        x.Confirm(4);
        Equal(1, x.Pending, "confirmed ones dropped");
        Equal(0u, x.Frame(7, true).AckTick, "a keyframe request acknowledges nothing");
    }

    /// SRV-13 to SRV-15: too far ahead and closed ticks dropped, late ones run now, the newest due
    /// input wins, and nothing executes behind what already has.
    /// SRV-12, SRV-13, SRV-14, SRV-15.
    static void Schedule()
    {
        InputSchedule<string> s = new InputSchedule<string>();
        InputWindow win = new InputWindow(2, 5);
        Equal(Submission.TooFarAhead, s.Submit(16, "a", 10, win), "ahead");
        Equal(Submission.TickClosed, s.Submit(7, "b", 10, win), "closed");
        Equal(Submission.Late, s.Submit(8, "c", 10, win), "late");
        Equal(Submission.Scheduled, s.Submit(12, "d", 10, win), "scheduled");
        Equal(Submission.Scheduled, s.Submit(10, "e", 10, win), "on time");
        Equal(3, s.Pending, "three buffered");
        string due;
        Equal(true, s.ExecuteDue(10, out due), "due at 10");
        Equal("e", due, "the newest due wins");
        Equal(false, s.ExecuteDue(10, out due), "nothing more at 10");
        Equal(1, s.Pending, "one left");
        // A hostile window of 2^64 - 1 ticks never overflows.
        InputWindow wide = new InputWindow(ulong.MaxValue, ulong.MaxValue);
        Equal(Submission.Scheduled, s.Submit(ulong.MaxValue, "f", 1, wide), "far but within a wide window");
        Equal(Submission.Late, s.Submit(0, "g", ulong.MaxValue, wide), "late by 2^64 - 1");
    }

    /// SRV-8.
    static void Tier()
    {
        TierBoundary t = new TierBoundary(12, 14);
        Equal(true, t.Admits(false, 12), "enter inclusive");
        Equal(false, t.Admits(false, 13), "a newcomer past enter");
        Equal(true, t.Admits(true, 14), "a member within leave");
        Equal(false, t.Admits(true, 14.01f), "a member past leave");
        Equal(false, t.Admits(true, float.NaN), "NaN never a member");
        Equal(12f, new TierBoundary(12, 3).Leave, "leave clamped up to enter");
    }
}
