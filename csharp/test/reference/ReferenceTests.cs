// Tests of the binding `ackwire gen --lang cs` writes for the reference protocol's `state
// Reference` (Reference.cs: the schemas Reference, kind 6, and PackedReference, kind 12) and of the
// reference presenter beside it (reference/Presenter.cs), over the generated codec of spec/protocol,
// which test.sh generates for this program alone (the runtime's own tests, test/*.cs, need no
// generated code):
// - issue 19's orientation: sent whole when it differs from the base's, not when it is the same,
//   refused when a record drops it or its ORIENTED bit disagrees; kept by an apply without the
//   group; hashed as the generated EntityState writer writes it; the presenter quantizes the
//   world's quaternion and keeps it for the entity's life;
// - the two frames: kind 6 frames with every group, ORIENT among them, go to kind 12 and back
//   equal (and to the same kind 6 bytes), the generated AckedPacked codec reads what the binding
//   writes, a kind 12 frame the binding reads goes back to its own bytes; a frame whose changes
//   do not ascend is refused (not_ascending), codes past kind 6's ranges are over_width at the
//   packed body's first byte with the field's path, as the Rust codec's tests hold it;
// - both readers against the generated ones, frame or error, on random frames and their mutants,
//   and what a kind 12 read allocates (DECODE_ALLOC_PER_BYTE, docs/limits.md);
// - the session halves over the packed schema, end to end: the client's state hash is the
//   server's S_N check on every tick, and it shows the orientation the world gave;
// - the coded profile's session rules (CODE-2, CODE-3) in the machines, over a probe schema
//   wrapping the packed one (CodedMachineTests.cs).

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class ReferenceTests
{
    static readonly Reference Six = Reference.Schema;
    static readonly PackedReference Twelve = PackedReference.Schema;

    // ---- frames and their text, to compare ----

    /// A frame as text: the generated frame its staged changes make (Reference.ToFrame) in its
    /// JSON form, and each change's yaw as its exact double (the JSON form's number is exact too,
    /// but say so).
    static string Text(AckedFrame<StagedChange, Event> f)
    {
        return Text(Reference.ToFrame(f));
    }

    /// A generated kind 6 frame as text (see above).
    static string Text(Acked f)
    {
        JsonWriter j = new JsonWriter();
        j.BeginArray();
        f.ToJson(j);
        foreach (Change c in f.Changes)
        {
            j.String(c.PoseFull != null ? c.PoseFull.Yaw.ToString("R") : c.PoseStep != null ? c.PoseStep.Yaw.ToString("R") : "");
        }
        j.EndArray();
        return j.ToString();
    }

    /// A generated kind 12 frame as text.
    static string Text(AckedPacked f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    static string Hex(byte[] b)
    {
        return Json.ToHex(b);
    }

    static float Finite(Rng rng)
    {
        float f = rng.AnyFloat();
        return float.IsNaN(f) || float.IsInfinity(f) ? (float)(rng.Next() % 100000) / 512f : f;
    }

    static readonly ChangeMask[] Groups =
    {
        ChangeMask.POSE, ChangeMask.HEALTH, ChangeMask.VEHICLE, ChangeMask.ORIENT, ChangeMask.POSE_FULL, ChangeMask.POSE_AGE,
    };

    /// A change of <paramref name="eid"/> from raw draws, as packed.rs's tests draw them: a
    /// mask of the six named bits (POSE forced when a POSE bit needs it), ORIENT half the time,
    /// and each group's values across their whole ranges, small steps most often.
    static Change RandomChange(Rng rng, ushort eid)
    {
        ChangeMask mask = 0;
        int bits = rng.Below(64);
        for (int i = 0; i < Groups.Length; i++)
        {
            if ((bits >> i & 1) == 1)
            {
                mask |= Groups[i];
            }
        }
        if ((mask & (ChangeMask.POSE_FULL | ChangeMask.POSE_AGE)) != 0)
        {
            mask |= ChangeMask.POSE;
        }
        Change c = new Change { Eid = eid, Mask = mask };
        if ((mask & ChangeMask.POSE_AGE) != 0)
        {
            c.Age = (byte)rng.Next();
        }
        if ((mask & ChangeMask.POSE) != 0 && (mask & ChangeMask.POSE_FULL) != 0)
        {
            c.PoseFull = new PoseFull { X = Finite(rng), Y = Finite(rng), Z = Finite(rng), Yaw = (ushort)rng.Next() * (360.0 / 65536) };
        }
        else if ((mask & ChangeMask.POSE) != 0)
        {
            c.PoseStep = new PoseStep
            {
                Dx = rng.Below(2) == 0 ? (short)rng.Next() : (short)(sbyte)rng.Next(),
                Dy = (short)rng.Next(),
                Dz = rng.Below(2) == 0 ? (short)0 : (short)rng.Next(),
                Yaw = (rng.Below(2) == 0 ? 0 : (byte)rng.Next()) * (360.0 / 256),
            };
        }
        if ((mask & ChangeMask.HEALTH) != 0)
        {
            c.Health = new Health { Hp = (byte)rng.Next(), Armor = (byte)rng.Next() };
        }
        if ((mask & ChangeMask.VEHICLE) != 0)
        {
            c.Vehicle = new Vehicle { Vehicle_ = (ushort)rng.Next(), Seat = (byte)rng.Next() };
        }
        if ((mask & ChangeMask.ORIENT) != 0)
        {
            c.Orient = new Orientation { Q = SmallestThree.FromXyzw(rng.AnyFloat(), rng.AnyFloat(), rng.AnyFloat(), rng.AnyFloat(), 9) };
        }
        return c;
    }

    /// A kind 6 frame of random header, removals, changes ascending by id (gaps mostly small,
    /// sometimes any u16) and events, as the binding reads it from the generated writer's bytes.
    static AckedFrame<StagedChange, Event> RandomFrame(Rng rng)
    {
        return Read(Six, RandomAcked(rng).Encode());
    }

    /// A kind 6 frame of random header, removals, changes ascending by id and events.
    static Acked RandomAcked(Rng rng)
    {
        bool keyframe = rng.Below(4) == 0;
        bool check = rng.Below(2) == 0;
        Acked f = new Acked
        {
            Tick = (uint)rng.Next(),
            BaseTick = keyframe ? 0 : (uint)rng.Next(),
            LastSeq = (uint)rng.Next(),
            InputBuffer = (byte)rng.Next(),
            Flags = (keyframe ? AckedFlags.KEYFRAME : 0) | (check ? AckedFlags.CHECK : 0),
            Check = check ? (uint)rng.Next() : (uint?)null,
        };
        ushort[] removed = new ushort[rng.Below(4)];
        for (int i = 0; i < removed.Length; i++)
        {
            removed[i] = (ushort)rng.Next();
        }
        f.Removed = removed;
        List<Change> changes = new List<Change>();
        long id = 0;
        int n = rng.Below(24);
        for (int i = 0; i < n; i++)
        {
            long gap = rng.Below(5) == 0 ? (long)(ushort)rng.Next() : rng.Below(40);
            id += i == 0 ? gap : Math.Max(1, gap);
            if (id > ushort.MaxValue)
            {
                break;
            }
            changes.Add(RandomChange(rng, (ushort)id));
        }
        f.Changes = changes.ToArray();
        Event[] events = new Event[rng.Below(3)];
        for (int i = 0; i < events.Length; i++)
        {
            byte weapon = (byte)rng.Next();
            events[i] = weapon % 2 == 0
                ? Event.Of(new Shot { Shooter = (ushort)rng.Next(), Weapon = weapon, Yaw = 90 })
                : Event.Of(new Blast { X = 1.5f, Y = -2, Z = 0.25f, Radius = weapon / 8.0 });
        }
        f.Events = events;
        f.FirstSerial = events.Length > 0 ? (uint)rng.Next() : (uint?)null;
        return f;
    }

    static AckedFrame<StagedChange, Event> Read(ReferenceSchema schema, byte[] bytes)
    {
        AckedFrame<StagedChange, Event> f = new AckedFrame<StagedChange, Event>();
        schema.DecodeFrameInto(bytes, f);
        return f;
    }

    /// Kind 6 to kind 12 and back is the identity on every kind 6 frame whose changes ascend
    /// (ORIENT among their groups), kind 12's bytes decode to the same frame and go back to
    /// kind 6's bytes, and the generated AckedPacked codec reads what the binding writes (ACK-15).
    static void PackedRoundTrip()
    {
        Rng rng = new Rng(0x2545F4914F6CDD1DUL);
        int oriented = 0;
        for (int round = 0; round < 600; round++)
        {
            byte[] six = RandomAcked(rng).Encode();
            AckedFrame<StagedChange, Event> f = Read(Six, six);
            byte[] twelve = Twelve.EncodeFrame(f);
            Equal(12, (int)twelve[0], "kind 12's first byte");
            AckedFrame<StagedChange, Event> back = Read(Twelve, twelve);
            Equal(Text(f), Text(back), "round " + round + ": kind 6, kind 12 and back");
            Equal(Hex(six), Hex(Six.EncodeFrame(back)), "round " + round + ": kind 6's bytes again");
            Equal(Text(PackedReference.ToFrame(f)), Text(AckedPacked.Decode(twelve)), "round " + round + ": the generated reader");
            foreach (StagedChange c in back.Changes)
            {
                if ((c.Mask & ChangeMask.ORIENT) != 0)
                {
                    oriented++;
                }
            }
        }
        True(oriented > 1000, "the frames carried orientations: " + oriented);
    }

    /// Kind 12 to kind 6 and back is the identity on every kind 12 frame the schema accepts:
    /// frames with a byte changed are mostly refused (a DecodeError, nothing else), and those
    /// read re-encode, through kind 6, to themselves.
    /// ACK-15.
    static void EveryKind12FrameHasItsKind6Frame()
    {
        Rng rng = new Rng(77);
        int accepted = 0, refused = 0;
        for (int round = 0; round < 3000; round++)
        {
            byte[] twelve = Twelve.EncodeFrame(RandomFrame(rng));
            twelve[rng.Below(twelve.Length)] ^= (byte)(1 + rng.Below(255));
            AckedFrame<StagedChange, Event> g;
            try
            {
                g = Read(Twelve, twelve);
            }
            catch (DecodeError)
            {
                refused++;
                continue;
            }
            accepted++;
            AckedFrame<StagedChange, Event> h = Read(Six, Six.EncodeFrame(g));
            Equal(Text(g), Text(h), "round " + round + ": through kind 6");
            Equal(Hex(twelve), Hex(Twelve.EncodeFrame(h)), "round " + round + ": kind 12 again");
        }
        True(accepted > 100 && refused > 100, "both kinds of input seen: " + accepted + " accepted, " + refused + " refused");
    }

    static StagedChange Step(ushort eid)
    {
        return new StagedChange { Eid = eid, Mask = ChangeMask.HEALTH, Hp = 7, Armor = 7 };
    }

    /// A kind 6 frame whose changes do not ascend has no kind 12 form: the writer refuses it
    /// (not_ascending, at the second change's id), where kind 6's writer writes it.
    /// ACK-14, WIRE-14.
    static void NotAscendingRefused()
    {
        foreach (ushort[] ids in new[] { new ushort[] { 4, 4 }, new ushort[] { 9, 2 } })
        {
            AckedFrame<StagedChange, Event> f = new AckedFrame<StagedChange, Event>
            {
                Tick = 5,
                BaseTick = 4,
                LastSeq = 1,
                Changes = new[] { Step(ids[0]), Step(ids[1]) },
            };
            True(Six.EncodeFrame(f).Length > 0, "kind 6 writes it");
            EncodeError got = null;
            try
            {
                Twelve.EncodeFrame(f);
            }
            catch (EncodeError e)
            {
                got = e;
            }
            True(got != null, ids[0] + ", " + ids[1] + ": refused");
            Equal(ErrorKind.NotAscending, got.Kind, ids[0] + ", " + ids[1] + ": kind");
            Equal("body.changes[1].eid", got.Path, ids[0] + ", " + ids[1] + ": path");
        }
    }

    static PackedChange Plain(uint eid)
    {
        return new PackedChange { Eid = eid, Mask = 0 };
    }

    static PackedChange PackedStep(int dx, ushort yaw)
    {
        return new PackedChange { Eid = 1, Mask = PackedMask.POSE, PoseStep = new PackedPoseStep { Dx = dx, Yaw = yaw } };
    }

    /// The codes past kind 6's ranges decode as kind 12 but are refused by the schema, as
    /// over_width at the packed body's first byte (17 header bytes, the check's 4 when it is
    /// there, 2 a removed id) with the field's path; the same codes one under the limit read.
    /// ACK-15.
    static void OverWidthCodes()
    {
        PackedChange aged = new PackedChange
        {
            Eid = 1,
            Mask = PackedMask.POSE | PackedMask.POSE_AGE,
            Age = 256,
            PoseStep = new PackedPoseStep(),
        };
        KeyValuePair<PackedChange, string>[] cases =
        {
            new KeyValuePair<PackedChange, string>(Plain(65536), "body.changes[0].eid"),
            new KeyValuePair<PackedChange, string>(PackedStep(32768, 0), "body.changes[0].pose_step.dx"),
            new KeyValuePair<PackedChange, string>(PackedStep(-32769, 0), "body.changes[0].pose_step.dx"),
            new KeyValuePair<PackedChange, string>(PackedStep(0, 256), "body.changes[0].pose_step.yaw"),
            // Two codes past: the first read is told.
            new KeyValuePair<PackedChange, string>(PackedStep(32768, 256), "body.changes[0].pose_step.dx"),
            new KeyValuePair<PackedChange, string>(aged, "body.changes[0].age"),
        };
        foreach (bool check in new[] { false, true })
        {
            foreach (KeyValuePair<PackedChange, string> c in cases)
            {
                AckedPacked f = new AckedPacked
                {
                    Tick = 9,
                    BaseTick = 8,
                    Flags = check ? AckedFlags.CHECK : 0,
                    Check = check ? (uint?)0xdeadbeef : null,
                    Removed = check ? new ushort[] { 1, 2 } : new ushort[] { 1 },
                    Body = new PackedChanges { Changes = new[] { c.Key } },
                    Events = new Event[0],
                };
                byte[] bytes = f.Encode();
                // The generated reader accepts it: the refusal is the schema's.
                AckedPacked.Decode(bytes);
                DecodeError got = null;
                try
                {
                    Read(Twelve, bytes);
                }
                catch (DecodeError e)
                {
                    got = e;
                }
                True(got != null, c.Value + ": refused");
                Equal(ErrorKind.OverWidth, got.Kind, c.Value + ": kind");
                Equal(check ? 25L : 19L, got.Offset, c.Value + ": offset");
                Equal(c.Value, got.Path, "path");
            }
        }
        // One under each limit reads, to kind 6's values.
        PackedChange most = new PackedChange
        {
            Eid = 65535,
            Mask = PackedMask.POSE | PackedMask.POSE_AGE,
            Age = 255,
            PoseStep = new PackedPoseStep { Dx = 32767, Dy = -32768, Dz = 0, Yaw = 255 },
        };
        AckedPacked edge = new AckedPacked
        {
            Tick = 9,
            BaseTick = 8,
            Removed = new ushort[0],
            Body = new PackedChanges { Changes = new[] { most } },
            Events = new Event[0],
        };
        StagedChange read = Read(Twelve, edge.Encode()).Changes[0];
        Equal(65535, (int)read.Eid, "the largest id");
        Equal((byte)255, read.Age, "the largest age");
        Equal(32767, read.X, "the largest step");
        Equal(-32768, read.Y, "the smallest step");
        Equal((ushort)255, read.Yaw, "the largest yaw");
    }

    /// Kind 12 carries the cube scene's typical change in fewer bytes: a step of tens of 1/512 m
    /// on x and y, none on z, yaw 0, an orientation (packed.rs's figures: 35 bytes and 28).
    static void TypicalCubeChange()
    {
        AckedFrame<StagedChange, Event> f = new AckedFrame<StagedChange, Event>
        {
            Tick = 5,
            BaseTick = 4,
            LastSeq = 1,
            Changes = new[]
            {
                new StagedChange
                {
                    Eid = 5,
                    Mask = ChangeMask.POSE | ChangeMask.ORIENT,
                    X = 40,
                    Y = -60,
                    Z = 0,
                    Yaw = 0,
                    OrientQ = (uint)StateRules.QuatBits(SmallestThree.FromXyzw(0.1f, 0.2f, 0.3f, 0.9f, 9), 9),
                },
            },
        };
        // Kind 6: 19 header + 4 eid and mask + 7 step + 4 orientation + 1 event count.
        Equal(35, Six.EncodeFrame(f).Length, "kind 6's bytes");
        // Kind 12: 17 header + (16 count + 5 eid + 6 mask + 9 + 9 + 1 + 1 steps and yaw + 29
        // orientation = 76 bits: 10 bytes) + 1 event count.
        Equal(28, Twelve.EncodeFrame(f).Length, "kind 12's bytes");
    }

    // ---- the orientation in kind 6's schema ----

    static EntityState Record(Orientation orient)
    {
        return new EntityState
        {
            X = 100,
            Y = -200,
            Z = 30,
            Yaw = 0x4000,
            Flags = orient != null ? StateFlags.ORIENTED : 0,
            Measured = 10,
            Hp = 90,
            Armor = 5,
            Vehicle = 0,
            Seat = 0,
            Orient = orient,
        };
    }

    static EntityState With(EntityState r, Orientation orient)
    {
        EntityState n = Six.Apply(r, new StagedChange { Eid = 1, Mask = 0 }, 10);
        n.Orient = orient;
        n.Flags = orient != null ? n.Flags | StateFlags.ORIENTED : n.Flags & ~StateFlags.ORIENTED;
        return n;
    }

    static Orientation Q(float x, float y, float z, float w)
    {
        return new Orientation { Q = SmallestThree.FromXyzw(x, y, z, w, Presenter.OrientBits) };
    }

    static void RefusedAsOrient(EntityState b, EntityState next, string what)
    {
        EncodeError got = null;
        try
        {
            StagedChange c;
            Six.Diff(1, b, next, 10, out c);
        }
        catch (EncodeError e)
        {
            got = e;
        }
        True(got != null, what + ": refused");
        Equal(ErrorKind.InvalidCondition, got.Kind, what + ": kind");
        Equal("orient", got.Path, what + ": path");
    }

    /// Issue 19: "a smallest-three quaternion is absolute, so a change carries it whole
    /// whenever it differs from the base's", never when it is the same; "a record keeps it for
    /// the entity's life once it has one": a record that drops it is refused, as is one whose
    /// ORIENTED bit and orientation disagree; an apply without the group keeps the base's, a
    /// pose change keeps ORIENTED.
    /// ACK-7, ACK-22.
    static void OrientDiffAndApply()
    {
        Orientation a = Q(0.1f, 0.2f, 0.3f, 0.9f);
        Orientation b = Q(0.9f, -0.2f, 0.3f, 0.1f);
        EntityState plain = Record(null);
        EntityState withA = With(plain, a);
        EntityState withB = With(plain, b);
        uint bitsA = (uint)StateRules.QuatBits(a.Q, 9);

        // Gaining one: the orientation group alone, whole.
        StagedChange c;
        True(Six.Diff(1, plain, withA, 10, out c), "an orientation gained is sent");
        Equal(ChangeMask.ORIENT, c.Mask, "the orientation group alone");
        Equal(bitsA, c.OrientQ, "sent whole");
        EntityState applied = Six.Apply(plain, c, 10);
        Equal(a.Q, applied.Orient.Q, "applied");
        Equal(StateFlags.ORIENTED, applied.Flags, "ORIENTED set, the pose's tier as it was");
        True(Six.SameRecord(withA, applied), "the client holds what the server does");

        // The same: nothing.
        True(!Six.Diff(1, withA, With(plain, Q(0.1f, 0.2f, 0.3f, 0.9f)), 10, out c), "the same orientation is not sent");

        // A new one: whole again, applied over the old.
        True(Six.Diff(1, withA, withB, 10, out c), "a new orientation is sent");
        Equal(ChangeMask.ORIENT, c.Mask, "a new orientation, its group alone");
        Equal(b.Q, Six.Apply(withA, c, 10).Orient.Q, "the new one applied");
        True(!Six.SameRecord(withA, withB), "records differing only in orientation differ");

        // A whole entity carries it with every other group.
        True(Six.Diff(1, null, withA, 10, out c), "a whole entity is sent");
        Equal(ChangeMask.POSE | ChangeMask.HEALTH | ChangeMask.VEHICLE | ChangeMask.ORIENT, c.Mask, "a whole entity");
        True(Six.SameRecord(withA, Six.Apply(null, c, 10)), "a whole entity applied");
        True(Six.Diff(1, null, plain, 10, out c), "a whole entity without one is sent");
        Equal((ChangeMask)0, c.Mask & ChangeMask.ORIENT, "a whole entity without one");
        Equal(null, Six.Apply(null, c, 10).Orient, "applied without one");

        // Dropped, or the bit and the value disagreeing: refused.
        RefusedAsOrient(withA, plain, "dropped");
        EntityState bitAlone = Record(null);
        bitAlone.Flags = StateFlags.ORIENTED;
        RefusedAsOrient(plain, bitAlone, "ORIENTED without an orientation");
        EntityState valueAlone = Record(null);
        valueAlone.Orient = a;
        RefusedAsOrient(plain, valueAlone, "an orientation without ORIENTED");
        RefusedAsOrient(null, valueAlone, "a whole entity's, without ORIENTED");

        // Other groups keep it: health, a pose step (POSE_FULL clear), a full pose (set).
        EntityState hurt = Six.Apply(withA, new StagedChange { Eid = 1, Mask = ChangeMask.HEALTH, Hp = 1, Armor = 2 }, 11);
        Equal(a.Q, hurt.Orient.Q, "health keeps it");
        Equal(StateFlags.ORIENTED, hurt.Flags, "and ORIENTED");
        EntityState full = Six.Apply(withA, new StagedChange
        {
            Eid = 1,
            Mask = ChangeMask.POSE | ChangeMask.POSE_FULL,
            X = (int)Bits.FromSingle(1),
            Y = (int)Bits.FromSingle(2),
            Z = (int)Bits.FromSingle(3),
            Yaw = 16384,
        }, 12);
        Equal(StateFlags.ORIENTED | StateFlags.POSE_FULL, full.Flags, "a full pose: POSE_FULL beside ORIENTED");
        Equal(512, full.X, "a metre is 512 steps");
        Equal(a.Q, full.Orient.Q, "a full pose keeps it");
        EntityState stepped = Six.Apply(full, new StagedChange { Eid = 1, Mask = ChangeMask.POSE, X = 1, Y = 1, Z = 1, Yaw = 0 }, 13);
        Equal(StateFlags.ORIENTED, stepped.Flags, "a step: POSE_FULL cleared, ORIENTED kept");
        Equal(513, stepped.X, "a step from the base's pose, which lies in the box");
        Equal(a.Q, stepped.Orient.Q, "a step keeps it");
        // The pose group ignores ORIENTED: a new pose tier is a pose change, an orientation is not.
        True(Six.Diff(1, full, With(full, b), 13, out c), "an orientation changing under a full pose is sent");
        Equal(ChangeMask.ORIENT, c.Mask, "an orientation changing under a full pose: its group alone");
        // A full pose off its grid, or a step past the field, does not apply.
        bool offGrid = false;
        try
        {
            Six.Apply(withA, new StagedChange { Eid = 1, Mask = ChangeMask.POSE | ChangeMask.POSE_FULL, X = (int)Bits.FromSingle(0.001f) }, 14);
        }
        catch (Inapplicable e)
        {
            offGrid = e.Why == "a full pose off its grid";
        }
        True(offGrid, "a full pose off the grid is inapplicable");
    }

    /// The check hashes each record as the generated EntityState writer writes it: 24 bytes,
    /// 28 with an orientation (AckedReference.HashRecord writes them out without a buffer).
    /// CHECK-3.
    static void HashIsTheWritersBytes()
    {
        Rng rng = new Rng(5);
        for (int i = 0; i < 2000; i++)
        {
            Orientation o = rng.Below(2) == 0 ? null : Q(rng.AnyFloat(), rng.AnyFloat(), rng.AnyFloat(), rng.AnyFloat());
            EntityState r = new EntityState
            {
                X = (int)rng.Next(),
                Y = (int)rng.Next(),
                Z = (int)rng.Next(),
                Yaw = (ushort)rng.Next(),
                Flags = (rng.Below(2) == 0 ? StateFlags.POSE_FULL : 0) | (o != null ? StateFlags.ORIENTED : 0),
                Measured = (uint)rng.Next(),
                Hp = (byte)rng.Next(),
                Armor = (byte)rng.Next(),
                Vehicle = (ushort)rng.Next(),
                Seat = (byte)rng.Next(),
                Orient = o,
            };
            Writer w = new Writer(r.EncodedLen());
            r.Write(w);
            byte[] bytes = w.ToArray();
            Equal(o != null ? 28 : 24, bytes.Length, "the writer's bytes");
            uint seed = (uint)rng.Next();
            Equal(Fnv.Fnv1a32(bytes, 0, bytes.Length, seed), Six.HashRecord(r, seed), "record " + i);
            Equal(Six.HashRecord(r, seed), Twelve.HashRecord(r, seed), "the packed schema's check is kind 6's");
        }
    }

    // ---- the presenter's orientation ----

    static EntityState Presented(ServerEntry<EntityState>[] state, int eid)
    {
        foreach (ServerEntry<EntityState> e in state)
        {
            if (e.Eid == eid)
            {
                return e.Record;
            }
        }
        throw new Failure("entity " + eid + " not presented");
    }

    /// The presenter quantizes the world's quaternion (SmallestThree.FromXyzw at 9 bits) on
    /// every tick it changes, whatever the pose's tier and rate, keeps it when the world drops
    /// it, and forgets it with the entity's life.
    static void PresenterOrientation()
    {
        Presenter p = new Presenter(new ViewConfig { Own = new ushort[] { 1 }, FarEvery = 6 });
        Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>
        {
            { 1, new WorldEntity { Life = 1, Hp = 100 } },
            // Far (40 m away, in the quantized box): its pose is due one tick in 6.
            { 7, new WorldEntity { Life = 1, X = 30, Y = 26.5f, Hp = 100 } },
        };
        ServerEntry<EntityState>[] s = p.Present(1, world);
        Equal(null, Presented(s, 7).Orient, "none given, none presented");
        Equal((StateFlags)0, Presented(s, 7).Flags, "far, quantized, no orientation");
        uint measured = Presented(s, 7).Measured;

        world[7].Orient = new Xyzw(0, 0, 0.38268343f, 0.9238795f);
        s = p.Present(2, world);
        EntityState r = Presented(s, 7);
        Equal(SmallestThree.FromXyzw(0, 0, 0.38268343f, 0.9238795f, 9), r.Orient.Q, "quantized as smallest three");
        Equal(StateFlags.ORIENTED, r.Flags, "ORIENTED, the pose's tier unchanged");
        Equal(measured, r.Measured, "the pose was not due: gaining an orientation is no pose change");
        // Near (its own), a pose due every tick, standing still: its pose is not measured
        // again for an orientation (the pose group compares POSE_FULL, not ORIENTED).
        world[1].Orient = new Xyzw(1, 0, 0, 0);
        s = p.Present(3, world);
        Equal(StateFlags.POSE_FULL | StateFlags.ORIENTED, Presented(s, 1).Flags, "near: full, oriented");
        Equal(1u, Presented(s, 1).Measured, "a still pose keeps its measurement");

        world[7].Orient = new Xyzw(0, 0, -0.38268343f, 0.9238795f);
        world[7].X = 30.5f;
        s = p.Present(4, world);
        Equal(SmallestThree.FromXyzw(0, 0, -0.38268343f, 0.9238795f, 9), Presented(s, 7).Orient.Q, "a new one at once, the pose not due");
        Equal(measured, Presented(s, 7).Measured, "the pose still as it was");

        world[7].Orient = null;
        s = p.Present(5, world);
        Equal(SmallestThree.FromXyzw(0, 0, -0.38268343f, 0.9238795f, 9), Presented(s, 7).Orient.Q, "kept when the world drops it");
        Equal(StateFlags.ORIENTED, Presented(s, 7).Flags & StateFlags.ORIENTED, "ORIENTED kept");

        // The same id, a new life: whole again, without the old life's orientation.
        world[7] = new WorldEntity { Life = 2, X = 30, Y = 26.5f, Hp = 100 };
        s = p.Present(6, world);
        Equal(null, Presented(s, 7).Orient, "a new life has none");
        Equal((StateFlags)0, Presented(s, 7).Flags & StateFlags.ORIENTED, "nor ORIENTED");
    }

    /// The session halves over the packed schema, end to end on a perfect network: every kind
    /// 12 frame the server sends applies, the client's state hash is the check of the server's
    /// S_N (a twin presenter computes it), and the client shows the world's orientations.
    static ViewConfig Config()
    {
        return new ViewConfig { Own = new ushort[] { 1 } };
    }

    static void PackedHalvesEndToEnd()
    {
        AckedServerHalf<IDictionary<int, WorldEntity>, EntityState, StagedChange, Event, Input> server =
            AckedHalves.Server(Twelve, new Presenter(Config()), new ScheduledInputs<Input>(new InputWindow(4, 64)));
        AckedClientHalf<EntityState, StagedChange, Event, Input> client = AckedHalves.Client(Twelve);
        Presenter twin = new Presenter(Config());
        Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>();
        for (int eid = 1; eid <= 20; eid++)
        {
            world[eid] = new WorldEntity { Life = 1, X = eid, Y = -eid, Hp = 100 };
        }
        int shown = 0;
        for (uint tick = 1; tick <= 60; tick++)
        {
            foreach (KeyValuePair<int, WorldEntity> e in world)
            {
                // A turn about z, a different rate each; every third entity has none.
                if (e.Key % 3 != 0)
                {
                    double half = tick * e.Key * 0.01;
                    e.Value.Orient = new Xyzw(0, 0, (float)Math.Sin(half), (float)Math.Cos(half));
                }
                e.Value.X += 0.01f * (e.Key % 4);
            }
            Now now = new Now(tick, tick * 50);
            server.HandleTick(now, new AckedTick<IDictionary<int, WorldEntity>, Event> { World = world, Events = new Event[0] });
            ServerEntry<EntityState>[] state = twin.Present(tick, world);
            for (Transmit t = server.PollTransmit(); t != null; t = server.PollTransmit())
            {
                Equal("acked_packed", t.Frame, "the server's frame name");
                Equal(12, (int)t.Bytes[0], "kind 12");
                Delivery<Event> d = client.HandleFrame(now, t.Frame, t.Bytes);
                Equal(DeliveryKind.Shown, d.Kind, "tick " + tick + ": shown");
                shown++;
            }
            Equal(AckedDelta.ServerCheck(Twelve, state), client.StateHash(), "tick " + tick + ": the client holds S_N");
            client.HandleTick(now, null);
            for (Transmit t = client.PollTransmit(); t != null; t = client.PollTransmit())
            {
                Equal("ack", t.Frame, "the client's frame name");
                server.HandleFrame(now, t.Frame, t.Bytes);
            }
        }
        Equal(60, shown, "every frame shown");
        EntityState two = client.Shown(2);
        True(two != null, "entity 2 shown");
        Equal(SmallestThree.FromXyzw(0, 0, (float)Math.Sin(60 * 2 * 0.01), (float)Math.Cos(60 * 2 * 0.01), 9), two.Orient.Q, "its orientation");
        EntityState three = client.Shown(3);
        True(three != null, "entity 3 shown");
        Equal(null, three.Orient, "entity 3 has none");
        int count = 0;
        foreach (KeyValuePair<int, EntityState> e in client.AllShown)
        {
            True(e.Value == client.Shown(e.Key), "AllShown gives each shown record");
            count++;
        }
        Equal(20, count, "every entity shown");
        Equal(20, client.ShownCount, "ShownCount");
        // Kind 6's name is refused by the packed client, as any other.
        bool refused = false;
        try
        {
            client.HandleFrame(new Now(61, 0), "acked", new byte[] { 6 });
        }
        catch (SessionError)
        {
            refused = true;
        }
        True(refused, "the packed client takes acked_packed frames only");
    }

    static string ErrorText(DecodeError e)
    {
        return "error " + Errors.KindName(e.Kind) + " at " + e.Offset + " in " + e.Path;
    }

    /// What the generated Acked.Decode reads, then ACK-4's keyframe rule.
    static string Generated(byte[] bytes)
    {
        Acked a;
        try
        {
            a = Acked.Decode(bytes);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        if ((a.Flags & AckedFlags.KEYFRAME) != 0 && a.BaseTick != 0)
        {
            return "error invalid_condition at 5 in base_tick";
        }
        return Text(a);
    }

    static string ViaSchema(ReferenceSchema schema, byte[] bytes, AckedFrame<StagedChange, Event> into)
    {
        try
        {
            schema.DecodeFrameInto(bytes, into);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        return schema == Six ? Text(into) : Text(PackedReference.ToFrame(into));
    }

    /// What the generated AckedPacked.Decode reads, then the keyframe rule, then the first code
    /// past kind 6's ranges (which this test's frames, written from kind 6's, never hold).
    static string GeneratedPacked(byte[] bytes)
    {
        AckedPacked a;
        try
        {
            a = AckedPacked.Decode(bytes);
        }
        catch (DecodeError e)
        {
            return ErrorText(e);
        }
        if ((a.Flags & AckedFlags.KEYFRAME) != 0 && a.BaseTick != 0)
        {
            return "error invalid_condition at 5 in base_tick";
        }
        long body = 17 + (a.Check.HasValue ? 4 : 0) + 2L * a.Removed.Length;
        for (int i = 0; i < a.Body.Changes.Length; i++)
        {
            PackedChange c = a.Body.Changes[i];
            string past = c.Eid > 65535 ? "eid"
                : c.Age.HasValue && c.Age.Value > 255 ? "age"
                : c.PoseStep == null ? null
                : c.PoseStep.Dx < short.MinValue || c.PoseStep.Dx > short.MaxValue ? "pose_step.dx"
                : c.PoseStep.Dy < short.MinValue || c.PoseStep.Dy > short.MaxValue ? "pose_step.dy"
                : c.PoseStep.Dz < short.MinValue || c.PoseStep.Dz > short.MaxValue ? "pose_step.dz"
                : c.PoseStep.Yaw > 255 ? "pose_step.yaw" : null;
            if (past != null)
            {
                return "error over_width at " + body + " in body.changes[" + i + "]." + past;
            }
        }
        return Text(a);
    }

    /// Both readers give what the generated ones give, frame or error (kind, offset, path), on
    /// random frames with orientations and events and on their mutants (a byte changed, the
    /// frame cut short, a bit of the last bytes flipped), read into one AckedFrame as the
    /// decoder reads them (its changes' array reused).
    static void ReadersAgreeWithTheCodec()
    {
        Rng rng = new Rng(99);
        AckedFrame<StagedChange, Event> six = new AckedFrame<StagedChange, Event>();
        AckedFrame<StagedChange, Event> twelve = new AckedFrame<StagedChange, Event>();
        int same = 0, refused = 0, packedSame = 0, packedRefused = 0;
        for (int round = 0; round < 1500; round++)
        {
            AckedFrame<StagedChange, Event> f = RandomFrame(rng);
            byte[][] kinds = { Six.EncodeFrame(f), Twelve.EncodeFrame(f) };
            for (int k = 0; k < 2; k++)
            {
                byte[] bytes = kinds[k];
                for (int m = 0; m < 4; m++)
                {
                    byte[] b = (byte[])bytes.Clone();
                    if (m == 1)
                    {
                        b[rng.Below(b.Length)] ^= (byte)(1 << rng.Below(8));
                    }
                    else if (m == 2)
                    {
                        Array.Resize(ref b, rng.Below(b.Length));
                    }
                    else if (m == 3 && b.Length > 23)
                    {
                        // The last changes' bytes (an orientation's padding and high bits) are
                        // where most rules are; hit them most often.
                        b[b.Length - 2 - rng.Below(4)] ^= (byte)(1 << rng.Below(8));
                    }
                    string want = k == 0 ? Generated(b) : GeneratedPacked(b);
                    Equal(want, ViaSchema(k == 0 ? (ReferenceSchema)Six : Twelve, b, k == 0 ? six : twelve),
                        "round " + round + ", kind " + (k == 0 ? 6 : 12) + ", mutant " + m + ": " + Hex(b));
                    bool error = want.StartsWith("error");
                    if (k == 0)
                    {
                        same += error ? 0 : 1;
                        refused += error ? 1 : 0;
                    }
                    else
                    {
                        packedSame += error ? 0 : 1;
                        packedRefused += error ? 1 : 0;
                    }
                }
            }
        }
        True(same > 1500 && refused > 500 && packedSame > 1500 && packedRefused > 500,
            same + " read, " + refused + " refused; kind 12: " + packedSame + " read, " + packedRefused + " refused");
    }

    /// <summary>
    /// The most heap bytes a read of a frame may allocate per byte of its input: the reference
    /// protocol's DECODE_ALLOC_PER_BYTE (docs/limits.md), beside DecodeAllocSlack, what any read
    /// allocates whatever its size (the frame's lists' headers).
    /// </summary>
    const long DecodeAllocPerByte = 48;

    /// <summary>The bytes a read may allocate whatever its size.</summary>
    const long DecodeAllocSlack = 256;

    /// <summary>
    /// What one read of <paramref name="bytes"/> by <paramref name="schema"/> allocates into a
    /// fresh AckedFrame (<paramref name="warm"/>: into one that read the frame before, as the
    /// decoder's does), between two readings of GC.GetAllocatedBytesForCurrentThread, after a
    /// warm-up that compiled the code.
    /// </summary>
    static long Allocated(ReferenceSchema schema, byte[] bytes, bool warm)
    {
        AckedFrame<StagedChange, Event> into = new AckedFrame<StagedChange, Event>();
        for (int i = 0; i < 20; i++)
        {
            schema.DecodeFrameInto(bytes, into);
        }
        if (!warm)
        {
            into = new AckedFrame<StagedChange, Event>();
        }
        long before = GC.GetAllocatedBytesForCurrentThread();
        schema.DecodeFrameInto(bytes, into);
        return GC.GetAllocatedBytesForCurrentThread() - before;
    }

    /// A kind 12 frame of <paramref name="n"/> changes of the least size (9 bits: consecutive ids, empty masks).
    static byte[] Densest(int n)
    {
        PackedChange[] changes = new PackedChange[n];
        for (int i = 0; i < n; i++)
        {
            changes[i] = new PackedChange { Eid = (uint)(i + 1), Mask = 0 };
        }
        return new AckedPacked { Tick = 2, BaseTick = 1, Removed = new ushort[0], Body = new PackedChanges { Changes = changes }, Events = new Event[0] }.Encode();
    }

    /// WIRE-26: a decoder allocates at most a stated small multiple of its input. A read by
    /// either schema allocates its changes' array (a StagedChange each, whichever frame) and
    /// the frame's removed ids and events, nothing per change: at most DecodeAllocPerByte bytes
    /// an input byte, plus DecodeAllocSlack, on the densest frames a peer can send (a kind 12
    /// change of 9 bits) into a fresh frame and into a warm one, on the same with an event
    /// after the changes, and on random frames.
    static void DecodeAllocation()
    {
        double most = 0;
        foreach (int n in new[] { 1, 100, 5000, 65535 })
        {
            byte[] bytes = Densest(n);
            foreach (bool warm in new[] { false, true })
            {
                long allocated = Allocated(Twelve, bytes, warm);
                most = Math.Max(most, (double)allocated / bytes.Length);
                Console.WriteLine("     the densest kind 12 frame of " + n + " changes, " + bytes.Length + " bytes, into a "
                    + (warm ? "warm" : "fresh") + " frame: " + allocated + " bytes allocated, "
                    + ((double)allocated / bytes.Length).ToString("F1") + " per input byte");
                True(allocated <= DecodeAllocSlack + DecodeAllocPerByte * bytes.Length,
                    n + " changes: " + allocated + " bytes for " + bytes.Length);
            }
        }
        Rng rng = new Rng(11);
        for (int round = 0; round < 200; round++)
        {
            AckedFrame<StagedChange, Event> f = RandomFrame(rng);
            foreach (ReferenceSchema schema in new ReferenceSchema[] { Six, Twelve })
            {
                byte[] bytes = schema.EncodeFrame(f);
                long allocated = Allocated(schema, bytes, false);
                most = Math.Max(most, (double)allocated / bytes.Length);
                True(allocated <= DecodeAllocSlack + DecodeAllocPerByte * bytes.Length,
                    "random frame " + round + " (" + schema.FrameName + "): " + allocated + " bytes for " + bytes.Length);
            }
        }
        Console.WriteLine("     at most " + most.ToString("F1") + " bytes allocated per input byte");
    }

    static int Main()
    {
        List<KeyValuePair<string, Action>> tests = new List<KeyValuePair<string, Action>>
        {
            new KeyValuePair<string, Action>("packed_round_trip_with_orient", PackedRoundTrip),
            new KeyValuePair<string, Action>("every_kind_12_frame_has_its_kind_6_frame", EveryKind12FrameHasItsKind6Frame),
            new KeyValuePair<string, Action>("packed_not_ascending_refused", NotAscendingRefused),
            new KeyValuePair<string, Action>("packed_codes_past_kind_6_are_over_width", OverWidthCodes),
            new KeyValuePair<string, Action>("packed_typical_cube_change", TypicalCubeChange),
            new KeyValuePair<string, Action>("orient_diff_and_apply", OrientDiffAndApply),
            new KeyValuePair<string, Action>("orient_hash_is_the_writers_bytes", HashIsTheWritersBytes),
            new KeyValuePair<string, Action>("presenter_orientation", PresenterOrientation),
            new KeyValuePair<string, Action>("packed_halves_end_to_end", PackedHalvesEndToEnd),
            new KeyValuePair<string, Action>("decode_allocation", DecodeAllocation),
            new KeyValuePair<string, Action>("coded_every_frame_applied_had_the_servers_basis", CodedMachineTests.EveryFrameAppliedHadTheServersBasis),
            new KeyValuePair<string, Action>("coded_frames_whose_older_snapshot_is_gone_are_dropped", CodedMachineTests.FramesWhoseOlderSnapshotIsGoneAreDropped),
            new KeyValuePair<string, Action>("coded_a_frame_whose_older_is_not_held_is_dropped", CodedMachineTests.AFrameWhoseOlderIsNotHeldIsDropped),
            new KeyValuePair<string, Action>("coded_the_older_snapshot_is_the_newest_acknowledged_within_255_ticks", CodedMachineTests.TheOlderSnapshotIsTheNewestAcknowledgedWithin255Ticks),
            new KeyValuePair<string, Action>("kind_12_names_no_older_snapshot", CodedMachineTests.Kind12NamesNoOlderSnapshot),
            new KeyValuePair<string, Action>("coded_reference_shows_the_servers_states", CodedMachineTests.GeneratedCodedReferenceShowsTheServersStates),
            new KeyValuePair<string, Action>("coded_reference_frames_are_smaller_than_kind_12s", CodedMachineTests.GeneratedCodedFramesAreSmallerThanKind12s),
            new KeyValuePair<string, Action>("coded_frame_vectors", CodedVectorTests.EveryCaseDecodesAndEncodes),
            new KeyValuePair<string, Action>("readers_agree_with_the_codec", ReadersAgreeWithTheCodec),
            new KeyValuePair<string, Action>("baseline_schema_gaps_and_mask", MachineSchemaTests.BaselineGapsAndMask),
            new KeyValuePair<string, Action>("datagram_schema_update_len", MachineSchemaTests.DatagramUpdateLen),
            new KeyValuePair<string, Action>("delta_schema_plan_and_ack", MachineSchemaTests.DeltaPlanAndAck),
            new KeyValuePair<string, Action>("components_replica_equals_the_servers_entities", ComponentTests.ReplicaEqualsTheServersEntities),
            new KeyValuePair<string, Action>("components_payloads_refused_where_they_fail", ComponentTests.PayloadsRefusedWhereTheyFail),
        };
        return Run(tests);
    }
}
