// Tests of the binding `ackwire gen --lang cs` writes for a second state, spec/tests/state/arena.wire
// (Arena.cs: the schemas Arena, kind 20, and PackedArena, kind 21), which test.sh generates for
// this program alone. The arena declares what the reference protocol's cubes leave out: a group
// of two forms without a tier (the step form when every field can step), a step form without a
// reach, 64-bit integers, a float of 64 bits, a bool and a bit set in a group, an optional group
// of plain fields holding a quantized one, a quaternion group every entity has, a 16-bit age.
// - Diff then Apply gives the record back, for entities coming whole and for changes onto a
//   base, in whichever form the motion travels; the same record gives no change;
// - the check hashes each record as the generated Fighter writer writes it;
// - frames of those changes written by either schema read back to the same frame, as the
//   generated codec reads them too, and apply onto the bases to the records they came from;
// - a read of the densest frames of either profile allocates within DECODE_ALLOC_PER_BYTE;
// - the session halves over either schema, end to end: the client holds the server's S_N.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class ArenaTests
{
    static readonly Arena Bytes = Arena.Schema;
    static readonly PackedArena Packed = PackedArena.Schema;

    /// A fighter at tick <paramref name="tick"/>: near <paramref name="near"/> (a step from it
    /// often reaches), its motion measured up to 300 ticks before, a shield half the time, an aim.
    static Fighter RandomFighter(Rng rng, Fighter near, uint tick)
    {
        bool small = near != null && rng.Below(3) > 0;
        int px = small ? near.Px + rng.Below(200) - 100 : (int)(rng.Next() % 4000000) - 2000000;
        int py = small ? near.Py + rng.Below(60000) - 30000 : (int)(rng.Next() % 16000000) - 8000000;
        long alt = small ? near.Alt + rng.Below(60000) - 30000 : (long)rng.Next();
        bool shielded = near != null && near.Shield != null || rng.Below(2) == 0;
        Fighter f = new Fighter
        {
            Px = px,
            Py = py,
            Alt = alt,
            Heading = (ushort)(rng.Below(2) == 0 ? rng.Below(256) * 256 : (int)rng.Next()),
            At = tick - (uint)Math.Min(tick, (uint)rng.Below(300)),
            Points = rng.Next(),
            Alive = rng.Below(2) == 0,
            Stance = (Stance)rng.Below(4),
            Rank = (ushort)rng.Next(),
            Flags = shielded ? FighterFlags.SHIELDED : 0,
            Shield = shielded ? new Shield { Strength = rng.Below(256) * 0.5, Regen = (ushort)rng.Next() } : null,
            Aim = new Aim { Q = SmallestThree.FromXyzw(rng.Below(100) - 50, rng.Below(100) - 50, rng.Below(100) - 50, rng.Below(100) + 1, 7) },
        };
        return f;
    }

    /// Diff then Apply gives the record back; the same record gives no change; a record
    /// dropping its shield is refused.
    static void DiffThenApply()
    {
        Rng rng = new Rng(3);
        int steps = 0, fulls = 0;
        for (int round = 0; round < 3000; round++)
        {
            uint tick = 1000 + (uint)round;
            Fighter b = RandomFighter(rng, null, tick - 1);
            Fighter next = RandomFighter(rng, b, tick);
            StagedFighterChange c;
            True(Bytes.Diff(7, null, b, tick - 1, out c), "a whole entity gives a change");
            True(Bytes.SameRecord(b, Bytes.Apply(null, c, tick - 1)), "round " + round + ": whole");
            if (Bytes.Diff(7, b, next, tick, out c))
            {
                Fighter applied = Bytes.Apply(b, c, tick);
                True(Bytes.SameRecord(next, applied), "round " + round + ": onto the base");
                if ((c.Mask & FighterMask.MOTION) != 0)
                {
                    if ((c.Mask & FighterMask.MOTION_FULL) != 0)
                    {
                        fulls++;
                    }
                    else
                    {
                        steps++;
                    }
                }
            }
            True(!Bytes.Diff(7, next, next, tick, out c), "the same record gives no change");
        }
        True(steps > 300 && fulls > 300, "both forms of the motion: " + steps + " steps, " + fulls + " full");
        Fighter shielded = RandomFighter(new Rng(9), null, 5);
        shielded.Flags = FighterFlags.SHIELDED;
        shielded.Shield = new Shield { Strength = 1.5, Regen = 2 };
        Fighter dropped = Bytes.Apply(shielded, new StagedFighterChange { Eid = 7 }, 5);
        dropped.Shield = null;
        dropped.Flags = 0;
        EncodeError refused = null;
        try
        {
            StagedFighterChange c;
            Bytes.Diff(7, shielded, dropped, 5, out c);
        }
        catch (EncodeError e)
        {
            refused = e;
        }
        True(refused != null && refused.Kind == ErrorKind.InvalidCondition && refused.Path == "shield", "a dropped shield is refused");
    }

    /// The check hashes each record as the generated Fighter writer writes it.
    static void HashIsTheWritersBytes()
    {
        Rng rng = new Rng(5);
        for (int i = 0; i < 2000; i++)
        {
            Fighter f = RandomFighter(rng, null, 400);
            Writer w = new Writer(f.EncodedLen());
            f.Write(w);
            byte[] bytes = w.ToArray();
            uint seed = (uint)rng.Next();
            Equal(Fnv.Fnv1a32(bytes, 0, bytes.Length, seed), Bytes.HashRecord(f, seed), "fighter " + i);
            Equal(Bytes.HashRecord(f, seed), Packed.HashRecord(f, seed), "both schemas hash the same bytes");
        }
    }

    static string Text(Melee f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    static string Text(MeleePacked f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    /// Frames of random changes, written by either schema, read back by it to the same frame,
    /// as the generated codec reads them, and apply onto their bases to the records they came
    /// from.
    static void FramesReadBackAndApply()
    {
        Rng rng = new Rng(11);
        for (int round = 0; round < 300; round++)
        {
            uint tick = 5000 + (uint)round;
            List<StagedFighterChange> changes = new List<StagedFighterChange>();
            List<Fighter> bases = new List<Fighter>();
            List<Fighter> nexts = new List<Fighter>();
            int eid = 0;
            int n = rng.Below(30);
            for (int i = 0; i < n; i++)
            {
                eid += 1 + rng.Below(rng.Below(4) == 0 ? 3000 : 5);
                if (eid > 65535)
                {
                    break;
                }
                Fighter b = rng.Below(4) == 0 ? null : RandomFighter(rng, null, tick - 1);
                Fighter next = RandomFighter(rng, b, tick);
                StagedFighterChange c;
                if (Bytes.Diff(eid, b, next, tick, out c))
                {
                    changes.Add(c);
                    bases.Add(b);
                    nexts.Add(next);
                }
            }
            AckedFrame<StagedFighterChange, ArenaEvent> f = new AckedFrame<StagedFighterChange, ArenaEvent>
            {
                Tick = tick,
                BaseTick = tick - 1,
                LastSeq = (uint)round,
                Check = round % 2 == 0 ? (uint?)round : null,
                Removed = new ushort[] { 3, 1 },
                Changes = changes.ToArray(),
                FirstSerial = 9,
                Events = new[] { ArenaEvent.Of(new Taunt { Who = 4 }) },
            };
            foreach (ArenaSchema schema in new ArenaSchema[] { Bytes, Packed })
            {
                byte[] bytes = schema.EncodeFrame(f);
                AckedFrame<StagedFighterChange, ArenaEvent> back = new AckedFrame<StagedFighterChange, ArenaEvent>();
                schema.DecodeFrameInto(bytes, back);
                if (schema == Bytes)
                {
                    Equal(Text(Arena.ToFrame(f)), Text(Arena.ToFrame(back)), "round " + round + ": kind 20 reads back");
                    Equal(Text(Melee.Decode(bytes)), Text(Arena.ToFrame(back)), "round " + round + ": as the codec reads it");
                }
                else
                {
                    Equal(Text(PackedArena.ToFrame(f)), Text(PackedArena.ToFrame(back)), "round " + round + ": kind 21 reads back");
                    Equal(Text(MeleePacked.Decode(bytes)), Text(PackedArena.ToFrame(back)), "round " + round + ": as the codec reads it");
                }
                for (int i = 0; i < back.Changes.Length; i++)
                {
                    True(schema.SameRecord(nexts[i], schema.Apply(bases[i], back.Changes[i], tick)), "round " + round + ": change " + i + " applies");
                }
                // A frame cut short is refused as the codec refuses it.
                byte[] cut = new byte[rng.Below(bytes.Length)];
                Array.Copy(bytes, cut, cut.Length);
                string want;
                try
                {
                    if (schema == Bytes)
                    {
                        Melee.Decode(cut);
                    }
                    else
                    {
                        MeleePacked.Decode(cut);
                    }
                    want = "read";
                }
                catch (DecodeError e)
                {
                    want = Errors.KindName(e.Kind) + " at " + e.Offset + " in " + e.Path;
                }
                string got;
                try
                {
                    schema.DecodeFrameInto(cut, back);
                    got = "read";
                }
                catch (DecodeError e)
                {
                    got = Errors.KindName(e.Kind) + " at " + e.Offset + " in " + e.Path;
                }
                Equal(want, got, "round " + round + ": a frame cut short");
            }
        }
    }

    /// <summary>The protocol's DECODE_ALLOC_PER_BYTE (docs/limits.md): the most heap bytes a read may allocate per input byte.</summary>
    const long DecodeAllocPerByte = 48;

    /// <summary>The bytes a read may allocate whatever its size (the frame's lists' headers).</summary>
    const long DecodeAllocSlack = 256;

    /// WIRE-26: a decoder allocates at most a stated small multiple of its input. The
    /// densest frames a peer can send of either profile (consecutive fighters, empty masks; a
    /// byte-aligned change of 4 bytes, a packed one of a few bits), read into a fresh frame and
    /// into a warm one, allocate at most DecodeAllocPerByte an input byte plus DecodeAllocSlack: the
    /// staged changes' array, nothing per change.
    static void DecodeAllocation()
    {
        foreach (ArenaSchema schema in new ArenaSchema[] { Bytes, Packed })
        {
            foreach (int n in new[] { 1, 100, 5000, 65535 })
            {
                StagedFighterChange[] changes = new StagedFighterChange[n];
                for (int i = 0; i < n; i++)
                {
                    changes[i].Eid = (ushort)(i + 1);
                }
                byte[] bytes = schema.EncodeFrame(new AckedFrame<StagedFighterChange, ArenaEvent>
                {
                    Tick = 2,
                    BaseTick = 1,
                    Removed = new ushort[0],
                    Changes = changes,
                    Events = new ArenaEvent[0],
                });
                foreach (bool warm in new[] { false, true })
                {
                    AckedFrame<StagedFighterChange, ArenaEvent> into = new AckedFrame<StagedFighterChange, ArenaEvent>();
                    for (int i = 0; i < 20; i++)
                    {
                        schema.DecodeFrameInto(bytes, into);
                    }
                    Equal(n, into.Changes.Length, schema.FrameName + ": the changes read");
                    if (!warm)
                    {
                        into = new AckedFrame<StagedFighterChange, ArenaEvent>();
                    }
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    schema.DecodeFrameInto(bytes, into);
                    long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                    True(allocated <= DecodeAllocSlack + DecodeAllocPerByte * bytes.Length,
                        schema.FrameName + ", " + n + " changes into a " + (warm ? "warm" : "fresh") + " frame: "
                        + allocated + " bytes allocated for " + bytes.Length);
                }
            }
        }
    }

    /// A presenter of the arena's world as it is: every fighter in full.
    sealed class Everyone : IAckedPresenter<SortedDictionary<int, Fighter>, Fighter>
    {
        public ServerEntry<Fighter>[] Present(uint tick, SortedDictionary<int, Fighter> world)
        {
            List<ServerEntry<Fighter>> state = new List<ServerEntry<Fighter>>();
            foreach (KeyValuePair<int, Fighter> e in world)
            {
                state.Add(new ServerEntry<Fighter>((ushort)e.Key, 1, e.Value));
            }
            return state.ToArray();
        }
    }

    sealed class NoInputs : IInputSink<Command>
    {
        public void Submit(uint seq, uint tick, Command input, ulong current)
        {
        }

        public int Pending()
        {
            return 0;
        }
    }

    /// The halves over either schema, end to end on a perfect network: the client's state hash
    /// is the check of the server's S_N on every tick, and it shows each fighter as the world has it.
    static void HalvesEndToEnd()
    {
        foreach (ArenaSchema schema in new ArenaSchema[] { Bytes, Packed })
        {
            Rng rng = new Rng(17);
            AckedServerHalf<SortedDictionary<int, Fighter>, Fighter, StagedFighterChange, ArenaEvent, Command> server =
                AckedHalves.Server(schema, new Everyone(), new NoInputs());
            AckedClientHalf<Fighter, StagedFighterChange, ArenaEvent, Command> client = AckedHalves.Client(schema);
            SortedDictionary<int, Fighter> world = new SortedDictionary<int, Fighter>();
            for (uint tick = 1; tick <= 90; tick++)
            {
                int eid = 1 + rng.Below(12);
                Fighter was;
                world.TryGetValue(eid, out was);
                Fighter next = RandomFighter(rng, was, tick);
                if (was != null && was.Shield != null)
                {
                    // A fighter keeps its shield for its life.
                    next.Flags = FighterFlags.SHIELDED;
                    next.Shield = next.Shield ?? was.Shield;
                }
                world[eid] = next;
                Now now = new Now(tick, tick * 50);
                server.HandleTick(now, new AckedTick<SortedDictionary<int, Fighter>, ArenaEvent> { World = world });
                for (Transmit t = server.PollTransmit(); t != null; t = server.PollTransmit())
                {
                    Equal(schema.FrameName, t.Frame, "the frame's name");
                    Equal(DeliveryKind.Shown, client.HandleFrame(now, t.Frame, t.Bytes).Kind, schema.FrameName + " tick " + tick + ": shown");
                }
                Equal(AckedDelta.ServerCheck(schema, new Everyone().Present(tick, world)), client.StateHash(), schema.FrameName + " tick " + tick + ": S_N");
                client.HandleTick(now, null);
                for (Transmit t = client.PollTransmit(); t != null; t = client.PollTransmit())
                {
                    Equal("arena_ack", t.Frame, "the ack's name");
                    server.HandleFrame(now, t.Frame, t.Bytes);
                }
            }
            foreach (KeyValuePair<int, Fighter> e in world)
            {
                True(schema.SameRecord(e.Value, client.Shown(e.Key)), schema.FrameName + ": fighter " + e.Key + " shown as the world has it");
            }
        }
    }

    static int Main()
    {
        List<KeyValuePair<string, Action>> tests = new List<KeyValuePair<string, Action>>
        {
            new KeyValuePair<string, Action>("arena_diff_then_apply", DiffThenApply),
            new KeyValuePair<string, Action>("arena_hash_is_the_writers_bytes", HashIsTheWritersBytes),
            new KeyValuePair<string, Action>("arena_frames_read_back_and_apply", FramesReadBackAndApply),
            new KeyValuePair<string, Action>("arena_decode_allocation", DecodeAllocation),
            new KeyValuePair<string, Action>("arena_halves_end_to_end", HalvesEndToEnd),
        };
        return Run(tests);
    }
}
