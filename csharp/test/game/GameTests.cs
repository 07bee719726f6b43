// Tests of the binding `ackwire gen --lang cs` writes for the game's state (examples/game/wire:
// Arena.cs, whose players' health is a ranged field, `u8 in 0..=100`, WIRE-29), which test.sh
// generates for this program alone, over the recorded stream's kind 6 frames
// (examples/game/vectors/streams/arena.txt, in $ACKWIRE_GAME_STREAM):
// - kind 6's reader at once takes every recorded frame it can take whole (no removed id: the
//   whole reader allocates the removed ids' array, the reader at once keeps a shared empty one),
//   health included: a warm read of one allocates nothing; every frame reads back to its bytes;
// - a health past 100 is left to the whole reader, which refuses it with the generated codec's
//   error (kind, offset, path); 0 and 100 are still read at once;
// - the states the recorded frames show go through the generated kind 13 schema (CodedArena,
//   its position steps predicted by `coded velocity`) as the game's server would send them:
//   each is shown as it was, in fewer bytes than kind 12's frames of the same states.

using System;
using System.Collections.Generic;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class GameTests
{
    static readonly Arena Bytes = Arena.Schema;

    /// The recorded stream's kind 6 frames, in order.
    static List<byte[]> RecordedFrames()
    {
        string file = Environment.GetEnvironmentVariable("ACKWIRE_GAME_STREAM");
        True(!string.IsNullOrEmpty(file), "ACKWIRE_GAME_STREAM names the game's arena.txt (test.sh sets it)");
        List<byte[]> frames = new List<byte[]>();
        foreach (string line in File.ReadAllLines(file))
        {
            if (line.StartsWith("frame ", StringComparison.Ordinal))
            {
                byte[] b = Json.FromHex(line.Substring("frame ".Length).Trim());
                if (b[0] == 6)
                {
                    frames.Add(b);
                }
            }
        }
        return frames;
    }

    /// Whether the reader at once can take <paramref name="b"/> with no allocation: no removed id
    /// and no event (the byte after the changes, the frame's last).
    static bool Quiet(byte[] b)
    {
        return b[15] == 0 && b[16] == 0 && ArenaUpdate.Decode(b).Events.Length == 0;
    }

    /// What a warm read of <paramref name="bytes"/> allocates (into a frame that read it before,
    /// as the decoder's does), after a warm-up that compiled the code.
    static long WarmAllocation(byte[] bytes, AckedFrame<StagedEntityChange, ArenaEvent> into)
    {
        for (int i = 0; i < 3; i++)
        {
            Bytes.DecodeFrameInto(bytes, into);
        }
        long before = GC.GetAllocatedBytesForCurrentThread();
        Bytes.DecodeFrameInto(bytes, into);
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    /// The error <paramref name="read"/> throws, as text.
    static string ErrorOf(Action read)
    {
        try
        {
            read();
        }
        catch (DecodeError e)
        {
            return e.Kind + " at " + e.Offset + " bit " + e.Bit + " in " + e.Path;
        }
        throw new Failure("no error");
    }

    /// The byte offset of the first player's health in a frame without a check or removals.
    static int FirstHealth(byte[] b)
    {
        True((b[14] & 2) == 0 && b[15] == 0 && b[16] == 0, "no check, no removal");
        int count = b[17] | b[18] << 8;
        int p = 19;
        for (int i = 0; i < count; i++)
        {
            EntityMask mask = (EntityMask)(b[p + 2] | b[p + 3] << 8);
            p += 4;
            p += (mask & EntityMask.POSITION_AGE) != 0 ? 1 : 0;
            if ((mask & EntityMask.POSITION) != 0)
            {
                p += (mask & EntityMask.POSITION_FULL) != 0 ? 8 : 4;
            }
            p += (mask & EntityMask.VELOCITY) != 0 ? 4 : 0;
            if ((mask & EntityMask.PLAYER) != 0)
            {
                return p + 1;
            }
            p += (mask & EntityMask.PROJECTILE) != 0 ? 2 : 0;
            p += (mask & EntityMask.PICKUP) != 0 ? 1 : 0;
        }
        throw new Failure("no player in the frame");
    }

    /// Every recorded frame reads back to its bytes; those the reader at once takes without an
    /// allocation (players' health among them) allocate nothing when read warm.
    static void RecordedFramesAtOnce()
    {
        List<byte[]> frames = RecordedFrames();
        True(frames.Count > 100, frames.Count + " frames");
        int quiet = 0, players = 0;
        foreach (byte[] bytes in frames)
        {
            AckedFrame<StagedEntityChange, ArenaEvent> into = new AckedFrame<StagedEntityChange, ArenaEvent>();
            Bytes.DecodeFrameInto(bytes, into);
            Equal(Json.ToHex(bytes), Json.ToHex(Bytes.EncodeFrame(into)), "the frame read back");
            if (!Quiet(bytes))
            {
                continue;
            }
            quiet++;
            foreach (StagedEntityChange c in into.Changes)
            {
                players += (c.Mask & EntityMask.PLAYER) != 0 ? 1 : 0;
            }
            Equal(0L, WarmAllocation(bytes, into), "a warm read of a frame the reader at once takes");
        }
        True(quiet > 50 && players > 100, quiet + " frames read at once, " + players + " players' health in them");
    }

    /// A health past 100 gets the generated codec's error; 0 and 100 are read at once.
    static void HealthPastTheRange()
    {
        byte[] bytes = RecordedFrames().Find(b => Quiet(b) && Array.Exists(ArenaUpdate.Decode(b).Changes, c => c.Player != null));
        True(bytes != null, "a frame with a player, no removal and no event");
        int at = FirstHealth(bytes);
        foreach (int health in new[] { 0, 100, 101, 255 })
        {
            byte[] mutant = (byte[])bytes.Clone();
            mutant[at] = (byte)health;
            AckedFrame<StagedEntityChange, ArenaEvent> into = new AckedFrame<StagedEntityChange, ArenaEvent>();
            if (health <= 100)
            {
                Equal(0L, WarmAllocation(mutant, into), "health " + health + " read at once");
                continue;
            }
            string want = ErrorOf(() => ArenaUpdate.Decode(mutant));
            True(want.StartsWith("OverWidth at " + at + " ", StringComparison.Ordinal) && want.EndsWith("health", StringComparison.Ordinal), want);
            Equal(want, ErrorOf(() => Bytes.DecodeFrameInto(mutant, into)), "health " + health);
        }
    }

    /// The states the recorded stream shows (read by a kind 6 decoder), sent again through
    /// kind 12 and kind 13 encoders, every frame acknowledged at once: the kind 13 client shows
    /// each state (its hash is the server's check of it), and kind 13's frames are smaller.
    static void RecordedStatesThroughKind13()
    {
        AckedDecoder<Entity, StagedEntityChange, ArenaEvent, Command> six =
            new AckedDecoder<Entity, StagedEntityChange, ArenaEvent, Command>(Bytes);
        AckedEncoder<Entity, StagedEntityChange, ArenaEvent, Command> e12 =
            new AckedEncoder<Entity, StagedEntityChange, ArenaEvent, Command>(PackedArena.Schema, new ScheduledInputs<Command>(new InputWindow(4, 64)));
        AckedEncoder<Entity, StagedEntityChange, ArenaEvent, Command> e13 =
            new AckedEncoder<Entity, StagedEntityChange, ArenaEvent, Command>(CodedArena.Schema, new ScheduledInputs<Command>(new InputWindow(4, 64)));
        AckedDecoder<Entity, StagedEntityChange, ArenaEvent, Command> d13 =
            new AckedDecoder<Entity, StagedEntityChange, ArenaEvent, Command>(CodedArena.Schema);
        long bytes12 = 0, bytes13 = 0;
        int shown = 0;
        foreach (byte[] bytes in RecordedFrames())
        {
            Delivery<ArenaEvent> d = six.Deliver(bytes);
            if (d.Kind != DeliveryKind.Shown)
            {
                continue;
            }
            uint tick = d.Report.Tick;
            List<ServerEntry<Entity>> entries = new List<ServerEntry<Entity>>();
            for (int eid = 0; eid < six.State.Span; eid++)
            {
                Entity r = six.State.Get(eid);
                if (r != null)
                {
                    entries.Add(new ServerEntry<Entity>((ushort)eid, 1, r));
                }
            }
            ServerEntry<Entity>[] state = entries.ToArray();
            bytes12 += e12.Encode(tick, state, new ArenaEvent[0]).Bytes.Length;
            byte[] coded = e13.Encode(tick, state, new ArenaEvent[0]).Bytes;
            bytes13 += coded.Length;
            Delivery<ArenaEvent> c = d13.Deliver(coded);
            Equal(DeliveryKind.Shown, c.Kind, "tick " + tick + ": the kind 13 frame shown"
                + (c.Error == null ? "" : ", not " + Errors.KindName(c.Error.Kind) + " in " + c.Error.Path));
            Equal(AckedDelta.ServerCheck(CodedArena.Schema, state), d13.StateHash(), "tick " + tick + ": the state shown");
            e12.OnAck(tick, new AckContent<Command> { AckTick = tick });
            e13.OnAck(tick, new AckContent<Command> { AckTick = d13.AckTick });
            shown++;
        }
        Console.WriteLine("     " + shown + " states: kind 12 " + bytes12 + " bytes, kind 13 " + bytes13 + " bytes");
        True(shown > 50, shown + " states shown");
        True(bytes13 < bytes12, "kind 13 " + bytes13 + " bytes, kind 12 " + bytes12);
    }

    static int Main()
    {
        List<KeyValuePair<string, Action>> tests = new List<KeyValuePair<string, Action>>
        {
            new KeyValuePair<string, Action>("game_recorded_frames_at_once", RecordedFramesAtOnce),
            new KeyValuePair<string, Action>("game_health_past_the_range", HealthPastTheRange),
            new KeyValuePair<string, Action>("game_recorded_states_through_kind_13", RecordedStatesThroughKind13),
            new KeyValuePair<string, Action>("game_components_round_trip", GameComponentTests.EveryGroupRoundTrips),
            new KeyValuePair<string, Action>("game_component_health_out_of_range", GameComponentTests.HealthOutOfRangeRefused),
        };
        return Run(tests);
    }
}
