// The bit-packed acked schema (spec/protocol/acked_packed.wire, kind 12, issue 19), as the Rust
// codec's `acked::PackedReference`: the reference protocol's records, changes and events
// (AckedReference's: the same diff, apply, check and kind 7 acks), with each frame written and
// read as kind 12 instead of kind 6.
//
// Kind 12 carries exactly kind 6's information: its header is kind 6's, its events are kind 6's,
// and each PackedChange is a kind 6 Change in variable widths (the id as a gap from the previous
// change's, the mask in its six named bits, the steps and the yaw in buckets). So this schema
// converts between the two at the frame's edge and every session machine (the AckedEncoder, the
// AckedDecoder, the halves) runs over it unchanged. The conversion is lossless both ways: every
// kind 6 frame whose changes ascend by id (the only ones the machines apply: ACK-8's changes in
// ascending id) has exactly one kind 12 frame, and back.
//
// ACK-16: every rule of the acked stream holds unchanged, since the machines and the schema's diff
// and apply are kind 6's: frame N carries what turns the acknowledged S_B into S_N (ACK-19,
// ACK-21), and each change says whether its pose is full and how old it is (ACK-21): kind 12
// carries the same bits for both.
//
// A kind 6 frame whose changes do not ascend has no kind 12 form: encoding it is not_ascending
// (the generated writer's refusal, at body.changes[i].eid). A few kind 12 codes have no kind 6
// value (a bucket list that holds every u16 holds more: an id past 65535, a step past an i16, a
// yaw or an age past a u8): decoding them is over_width, reported at the packed body's first
// byte with the field's path (body.changes[i].pose_step.dx), as the Rust codec reports them.
//
// This file uses the generated codec (namespace Ackwire.Protocol) and reference/Acked.cs beside
// it; conformance/testees/cs/build.sh copies this folder beside them (gen/reference/).

using System;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Reference
{
    /// <summary>
    /// The bit-packed reference schema: ReferenceSchema (kind 6's records, changes, diff, apply,
    /// check and kind 7 acks, inherited, not copied) with frames of kind 12 (acked_packed.wire).
    /// </summary>
    public sealed class AckedPackedReference : ReferenceSchema
    {
        /// <summary>The one instance (the schema holds no state).</summary>
        public static readonly AckedPackedReference Schema = new AckedPackedReference();

        /// <summary>The name of its frames (kind 12) in a session: <c>acked_packed</c>.</summary>
        public const string FrameName = "acked_packed";

        /// <summary>The kind 6 mask bits, and at the same index the kind 12 bits they become, in the same meaning.</summary>
        static readonly ChangeMask[] WideBits =
        {
            ChangeMask.POSE, ChangeMask.HEALTH, ChangeMask.VEHICLE, ChangeMask.ORIENT, ChangeMask.POSE_FULL, ChangeMask.POSE_AGE,
        };

        static readonly PackedMask[] NarrowBits =
        {
            PackedMask.POSE, PackedMask.HEALTH, PackedMask.VEHICLE, PackedMask.ORIENT, PackedMask.POSE_FULL, PackedMask.POSE_AGE,
        };

        /// <summary>
        /// The most heap bytes a read of a kind 12 frame (DecodeFrameInto) allocates per byte of
        /// its input, beside DecodeAllocSlack: the generated decode's values (a PackedChange of
        /// 72 bytes and its list slot for as little as 9 bits of input) and the kind 6 Change
        /// each becomes (64 bytes and a slot): 152 bytes for 9 bits, 135.1 a byte, measured on
        /// Mono. Held by the runtime's tests (test/reference/ReferenceTests.cs) on the densest
        /// frames a peer can send.
        /// </summary>
        public const long DecodeAllocPerByte = 144;

        /// <summary>The bytes a read allocates whatever its size (the frame's and its lists' headers).</summary>
        public const long DecodeAllocSlack = 512;

        /// <summary>Kind 12's header before the packed body: kind 6's without changed_count (kind, tick, base_tick, last_seq, input_buffer, flags, removed_count).</summary>
        const int HeaderBytes = 17;

        /// <summary>
        /// Kind 6's mask as kind 12's; a reserved bit of kind 6's (which no decoded change holds,
        /// and kind 6's writer refuses) is <c>reserved_bit</c> at <c>mask</c>.
        /// </summary>
        public static PackedMask PackMask(ChangeMask mask)
        {
            PackedMask packed = 0;
            int named = 0;
            for (int i = 0; i < WideBits.Length; i++)
            {
                named |= (int)WideBits[i];
                if ((mask & WideBits[i]) != 0)
                {
                    packed |= NarrowBits[i];
                }
            }
            if (((int)mask & ~named) != 0)
            {
                throw new EncodeError(ErrorKind.ReservedBit).Within("mask");
            }
            return packed;
        }

        /// <summary>Kind 12's mask as kind 6's.</summary>
        public static ChangeMask UnpackMask(PackedMask mask)
        {
            ChangeMask wide = 0;
            for (int i = 0; i < NarrowBits.Length; i++)
            {
                if ((mask & NarrowBits[i]) != 0)
                {
                    wide |= WideBits[i];
                }
            }
            return wide;
        }

        /// <summary>
        /// A PoseStep's yaw (degrees) as kind 6's writer quantizes it: round(yaw / (360/256)),
        /// halves away from zero, a non-finite value as 0, past a u8 <c>over_width</c> at
        /// <c>pose_step.yaw</c>. The degrees kind 6's model holds are steps × 360/256, so the
        /// count is recovered exactly for any value kind 6 decodes.
        /// </summary>
        static byte YawSteps(double yaw)
        {
            double steps = double.IsNaN(yaw) || double.IsInfinity(yaw) ? 0 : AckedReference.RoundHalfAway(yaw / AckedReference.YawStep);
            if (!(steps >= 0 && steps <= 255))
            {
                throw new EncodeError(ErrorKind.OverWidth).Within("yaw").Within("pose_step");
            }
            return (byte)steps;
        }

        /// <summary>Kind 6's change as kind 12's (the yaw of a PoseStep as its step count).</summary>
        static PackedChange PackChange(Change c)
        {
            PackedChange p = new PackedChange
            {
                Eid = c.Eid,
                Mask = PackMask(c.Mask),
                Age = c.Age.HasValue ? (ushort?)c.Age.Value : null,
            };
            if (c.PoseFull != null)
            {
                p.PoseFull = new PackedPoseFull { X = c.PoseFull.X, Y = c.PoseFull.Y, Z = c.PoseFull.Z, Yaw = c.PoseFull.Yaw };
            }
            if (c.PoseStep != null)
            {
                p.PoseStep = new PackedPoseStep { Dx = c.PoseStep.Dx, Dy = c.PoseStep.Dy, Dz = c.PoseStep.Dz, Yaw = YawSteps(c.PoseStep.Yaw) };
            }
            if (c.Health != null)
            {
                p.Health = new PackedHealth { Hp = c.Health.Hp, Armor = c.Health.Armor };
            }
            if (c.Vehicle != null)
            {
                p.Vehicle = new PackedVehicle { Vehicle = c.Vehicle.Vehicle_, Seat = c.Vehicle.Seat };
            }
            p.Orient = c.Orient;
            return p;
        }

        /// <summary>A kind 12 code with no kind 6 value: <c>over_width</c> at byte <paramref name="at"/> (the packed body's first), at field <paramref name="path"/> (outermost first).</summary>
        static DecodeError Over(long at, params string[] path)
        {
            DecodeError e = new DecodeError(ErrorKind.OverWidth, at, -1);
            for (int i = path.Length - 1; i >= 0; i--)
            {
                e = e.Within(path[i]);
            }
            return e;
        }

        static short Narrow(int v, long at, string field)
        {
            if (v < short.MinValue || v > short.MaxValue)
            {
                throw Over(at, "pose_step", field);
            }
            return (short)v;
        }

        /// <summary>
        /// Kind 12's change as kind 6's; a code with no kind 6 value is <c>over_width</c> at
        /// <paramref name="at"/> (the packed body's first byte), with the field's path, checked
        /// in the Rust codec's order (eid, age, then the step's yaw, dx, dy, dz).
        /// </summary>
        static Change UnpackChange(PackedChange p, long at)
        {
            if (p.Eid > ushort.MaxValue)
            {
                throw Over(at, "eid");
            }
            Change c = new Change { Eid = (ushort)p.Eid, Mask = UnpackMask(p.Mask) };
            if (p.Age.HasValue)
            {
                if (p.Age.Value > byte.MaxValue)
                {
                    throw Over(at, "age");
                }
                c.Age = (byte)p.Age.Value;
            }
            if (p.PoseFull != null)
            {
                c.PoseFull = new PoseFull { X = p.PoseFull.X, Y = p.PoseFull.Y, Z = p.PoseFull.Z, Yaw = p.PoseFull.Yaw };
            }
            PackedPoseStep s = p.PoseStep;
            if (s != null)
            {
                if (s.Yaw > byte.MaxValue)
                {
                    throw Over(at, "pose_step", "yaw");
                }
                c.PoseStep = new PoseStep
                {
                    Dx = Narrow(s.Dx, at, "dx"),
                    Dy = Narrow(s.Dy, at, "dy"),
                    Dz = Narrow(s.Dz, at, "dz"),
                    // As kind 6's reader scales its u8, to the same double.
                    Yaw = s.Yaw * (360.0 / 256.0),
                };
            }
            if (p.Health != null)
            {
                c.Health = new Health { Hp = p.Health.Hp, Armor = p.Health.Armor };
            }
            if (p.Vehicle != null)
            {
                c.Vehicle = new Vehicle { Vehicle_ = p.Vehicle.Vehicle, Seat = p.Vehicle.Seat };
            }
            c.Orient = p.Orient;
            return c;
        }

        /// <summary>A kind 6 frame as kind 12's; throws an EncodeError (<c>over_width</c> at <c>event_count</c> past 255 events; a change's at <c>body.changes[i]</c>).</summary>
        public static AckedPacked PackFrame(AckedFrame<Change, Event> f)
        {
            if (f.Events.Length > 255)
            {
                throw new EncodeError(ErrorKind.OverWidth).Within("event_count");
            }
            PackedChange[] changes = new PackedChange[f.Changes.Length];
            for (int i = 0; i < changes.Length; i++)
            {
                try
                {
                    changes[i] = PackChange(f.Changes[i]);
                }
                catch (EncodeError e)
                {
                    throw e.Within(i).Within("changes").Within("body");
                }
            }
            return new AckedPacked
            {
                Tick = f.Tick,
                BaseTick = f.BaseTick,
                LastSeq = f.LastSeq,
                InputBuffer = f.InputBuffer,
                Flags = (f.Keyframe ? AckedFlags.KEYFRAME : 0) | (f.Check.HasValue ? AckedFlags.CHECK : 0),
                Check = f.Check,
                Removed = f.Removed,
                Body = new PackedChanges { Changes = changes },
                FirstSerial = f.Events.Length > 0 ? f.FirstSerial : (uint?)null,
                Events = f.Events,
            };
        }

        /// <summary>
        /// A kind 12 frame as kind 6's, into <paramref name="into"/>; throws a DecodeError. The
        /// header through kind 6's AckedReference.HeaderInto, which checks ACK-4 (a keyframe
        /// applies onto nothing, its base_tick 0) as kind 6's decoder checks it
        /// (<c>invalid_condition</c> at byte 5, <c>base_tick</c>), before the changes; then every
        /// change converted (on an <c>over_width</c> the frame holds the new header and its old
        /// changes, as any frame a decoder failed to read holds anything).
        /// </summary>
        public static void UnpackFrameInto(AckedPacked f, AckedFrame<Change, Event> into)
        {
            AckedReference.HeaderInto(into, f.Tick, f.BaseTick, f.LastSeq, f.InputBuffer, f.Flags, f.Check, f.Removed, f.FirstSerial, f.Events);
            long at = HeaderBytes + (f.Check.HasValue ? 4 : 0) + 2L * f.Removed.Length;
            PackedChange[] packed = f.Body.Changes;
            Change[] changes = new Change[packed.Length];
            for (int i = 0; i < packed.Length; i++)
            {
                try
                {
                    changes[i] = UnpackChange(packed[i], at);
                }
                catch (DecodeError e)
                {
                    throw e.Within(i).Within("changes").Within("body");
                }
            }
            into.Changes = changes;
        }

        /// <summary>A kind 12 frame as a new kind 6 frame; throws a DecodeError (see UnpackFrameInto).</summary>
        public static AckedFrame<Change, Event> UnpackFrame(AckedPacked f)
        {
            AckedFrame<Change, Event> into = new AckedFrame<Change, Event>();
            UnpackFrameInto(f, into);
            return into;
        }

        /// <summary>The frame as kind 12's bytes (PackFrame, then the generated writer, which refuses changes that do not ascend: <c>not_ascending</c>); throws an EncodeError.</summary>
        public override byte[] EncodeFrame(AckedFrame<Change, Event> f)
        {
            return PackFrame(f).Encode();
        }

        /// <summary>Reads kind 12's bytes (the generated AckedPacked.Decode, then UnpackFrameInto) into <paramref name="into"/>; throws a DecodeError.</summary>
        public override void DecodeFrameInto(byte[] bytes, AckedFrame<Change, Event> into)
        {
            UnpackFrameInto(AckedPacked.Decode(bytes), into);
        }
    }
}
