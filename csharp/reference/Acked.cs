// The reference protocol's acked schema (spec/protocol/acked.wire, `docs/spec/acked.md`) bound to
// the runtime's generic machines (Runtime/Sessions/Acked.cs), as the Rust codec's
// `acked::Reference`: records are EntityState, changes are Change with POSE_FULL and POSE_AGE,
// events are Event, inputs are Input. The orientation (ChangeMask.ORIENT, StateFlags.ORIENTED,
// issue 19) is a group of its own: a smallest-three quaternion is absolute, so a change carries it
// whole whenever it differs from the base's, never as a step; and a record keeps it for the
// entity's life once it has one (an apply without the group leaves the base's). Beside it, the
// server's Presenter (each client's S_N from a world, with the near tier's TierBoundary), and the
// two session halves: AckedClientHalf, the facade a Unity MonoBehaviour or a Godot node drives, and
// AckedServerHalf, each over this schema or the bit-packed one (AckedPacked.cs, kind 12).
//
// This file uses the generated codec (namespace Ackwire.Protocol): `ackwire gen --lang cs`
// writes it and the runtime, and conformance/testees/cs/build.sh copies this folder beside them
// (gen/reference/).

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Reference
{
    /// <summary>
    /// What the reference protocol's two acked schemas share: acked.wire's records, changes and
    /// events, the diff and apply between them, the check's record bytes, the rings and the kind
    /// 7 acks. Kind 6's AckedReference and kind 12's AckedPackedReference differ only in how a
    /// frame is written and read (EncodeFrame, DecodeFrameInto), so each is this with its frames.
    /// </summary>
    public abstract class ReferenceSchema : IAckedSchema<EntityState, Change, Event, Input>
    {
        /// <summary>
        /// The box a quantized pose lies in: at most this many 1/512 m steps from the origin on
        /// every axis (about 32 m). Any two points of the box are at most 32766 steps apart, so a
        /// PoseStep (i16 steps) reaches a quantized pose from any base pose in the box, and from
        /// the origin.
        /// </summary>
        public const int PoseReach = 16383;

        /// <summary>Steps of 1/512 m an f32 holds exactly, all of them: 2^24.</summary>
        const double F32Exact = 16777216;

        /// <summary>Degrees per yaw step, 65536 a turn.</summary>
        public const double YawFull = 360.0 / 65536;

        /// <summary>Degrees per quantized yaw step, 256 a turn.</summary>
        public const double YawStep = 360.0 / 256;

        /// <summary>
        /// The bits of each component of the orientation's smallest three (acked.wire's
        /// <c>Orientation</c>: <c>quat(9)</c>).
        /// </summary>
        public const int OrientBits = 9;

        /// <inheritdoc/>
        public int SentRing { get { return (int)Constants.SENT_RING; } }
        /// <inheritdoc/>
        public int HeldRing { get { return (int)Constants.HELD_RING; } }
        /// <inheritdoc/>
        public ulong EventTtl { get { return Constants.EVENT_TTL; } }
        /// <inheritdoc/>
        public ulong CheckEvery { get { return Constants.CHECK_EVERY; } }
        /// <inheritdoc/>
        public int ReliableAbove { get { return (int)Constants.RELIABLE_ABOVE; } }

        /// <summary>Rounds halves away from zero, as the other languages' codecs do (exactly, without adding 0.5).</summary>
        public static double RoundHalfAway(double x)
        {
            double t = Math.Truncate(x);
            double frac = x - t;
            if (frac >= 0.5)
            {
                return t + 1;
            }
            if (frac <= -0.5)
            {
                return t - 1;
            }
            return t;
        }

        static bool InBox(EntityState r)
        {
            return Math.Abs((long)r.X) <= PoseReach && Math.Abs((long)r.Y) <= PoseReach && Math.Abs((long)r.Z) <= PoseReach;
        }

        /// <summary>
        /// The point a PoseStep counts from: the base's pose when the base holds the entity (same
        /// life) and its pose lies in the box, the origin otherwise. Both sides decide it from
        /// the base alone.
        /// </summary>
        static void StepOrigin(EntityState b, out int ox, out int oy, out int oz)
        {
            if (b != null && InBox(b))
            {
                ox = b.X;
                oy = b.Y;
                oz = b.Z;
            }
            else
            {
                ox = 0;
                oy = 0;
                oz = 0;
            }
        }

        /// <summary>A full pose's coordinate as whole 1/512 m steps (CHECK-4).</summary>
        static int Grid(float v)
        {
            double s = (double)v * 512;
            if (double.IsNaN(s) || double.IsInfinity(s) || s - Math.Truncate(s) != 0 || Math.Abs(s) >= F32Exact)
            {
                throw new Inapplicable("a full pose off the 1/512 m grid");
            }
            return (int)s;
        }

        /// <summary>A double cast to u16 as Rust's <c>as u16</c> does: saturating, NaN as 0.</summary>
        static ushort AsU16(double v)
        {
            return v >= 65535 ? (ushort)65535 : v > 0 ? (ushort)Math.Truncate(v) : (ushort)0;
        }

        /// <summary><c>over_width</c> at field <paramref name="path"/> (outermost first).</summary>
        internal static EncodeError Over(params string[] path)
        {
            EncodeError e = new EncodeError(ErrorKind.OverWidth);
            for (int i = path.Length - 1; i >= 0; i--)
            {
                e = e.Within(path[i]);
            }
            return e;
        }

        /// <summary>
        /// Whether the pose group says the same of two records: position, heading, tier
        /// (POSE_FULL alone, not the ORIENTED bit, which is the orientation group's) and
        /// measurement tick.
        /// </summary>
        static bool SamePose(EntityState a, EntityState b)
        {
            return a.X == b.X && a.Y == b.Y && a.Z == b.Z && a.Yaw == b.Yaw
                && (a.Flags & StateFlags.POSE_FULL) == (b.Flags & StateFlags.POSE_FULL) && a.Measured == b.Measured;
        }

        /// <summary>Whether two orientations (either null for none) are the same quaternion.</summary>
        public static bool SameOrient(Orientation a, Orientation b)
        {
            if (a == null || b == null)
            {
                return a == null && b == null;
            }
            return a.Q.Equals(b.Q);
        }

        static EncodeError BadOrient()
        {
            return new EncodeError(ErrorKind.InvalidCondition).Within("orient");
        }

        static short StepOf(int to, int from)
        {
            long v = (long)to - from;
            if (v < short.MinValue || v > short.MaxValue)
            {
                throw Over("pose_step");
            }
            return (short)v;
        }

        /// <summary>
        /// ACK-21: every change says if its pose is full (POSE_FULL), the base being any recent
        /// frame, and a pose taken before the frame's tick carries its age (POSE_AGE) so that the
        /// client dates it right (ACK-33).
        /// </summary>
        public Change Diff(int eid, EntityState b, EntityState next, uint tick)
        {
            bool pose = b == null || !SamePose(b, next);
            bool health = b == null || b.Hp != next.Hp || b.Armor != next.Armor;
            bool vehicle = b == null || b.Vehicle != next.Vehicle || b.Seat != next.Seat;
            bool oriented = (next.Flags & StateFlags.ORIENTED) != 0;
            if (oriented != (next.Orient != null))
            {
                // A record whose ORIENTED bit and orientation disagree: the writer of
                // EntityState refuses it too (its condition is `flags.ORIENTED`).
                throw BadOrient();
            }
            // Once an entity has an orientation it keeps it for its life: a change can send a
            // new one but cannot take one away (no group says "none"), so a record that drops
            // the base's orientation is refused rather than sent as a change the client would
            // apply keeping the old one (its check would then differ from the server's).
            if (b != null && b.Orient != null && next.Orient == null)
            {
                throw BadOrient();
            }
            // Smallest three is absolute: the group goes whole whenever it differs from the
            // base's (and with every whole entity that has one).
            bool orient = next.Orient != null && (b == null || !SameOrient(b.Orient, next.Orient));
            if (!pose && !health && !vehicle && !orient)
            {
                return null;
            }
            Change change = new Change { Eid = (ushort)eid, Mask = 0 };
            if (pose)
            {
                change.Mask |= ChangeMask.POSE;
                long age = (long)tick - next.Measured;
                if (age < 0)
                {
                    throw Over("age");
                }
                if (age > 0)
                {
                    change.Mask |= ChangeMask.POSE_AGE;
                    if (age > 255)
                    {
                        throw Over("age");
                    }
                    change.Age = (byte)age;
                }
                if ((next.Flags & StateFlags.POSE_FULL) != 0)
                {
                    change.Mask |= ChangeMask.POSE_FULL;
                    if (Math.Abs((long)next.X) >= F32Exact || Math.Abs((long)next.Y) >= F32Exact || Math.Abs((long)next.Z) >= F32Exact)
                    {
                        throw Over("pose_full");
                    }
                    change.PoseFull = new PoseFull
                    {
                        X = (float)(next.X / 512.0),
                        Y = (float)(next.Y / 512.0),
                        Z = (float)(next.Z / 512.0),
                        Yaw = next.Yaw * YawFull,
                    };
                }
                else
                {
                    int ox, oy, oz;
                    StepOrigin(b, out ox, out oy, out oz);
                    if ((next.Yaw & 0xff) != 0)
                    {
                        throw Over("pose_step", "yaw");
                    }
                    change.PoseStep = new PoseStep
                    {
                        Dx = StepOf(next.X, ox),
                        Dy = StepOf(next.Y, oy),
                        Dz = StepOf(next.Z, oz),
                        Yaw = (next.Yaw >> 8) * YawStep,
                    };
                }
            }
            if (health)
            {
                change.Mask |= ChangeMask.HEALTH;
                change.Health = new Health { Hp = next.Hp, Armor = next.Armor };
            }
            if (vehicle)
            {
                change.Mask |= ChangeMask.VEHICLE;
                change.Vehicle = new Vehicle { Vehicle_ = next.Vehicle, Seat = next.Seat };
            }
            if (orient)
            {
                change.Mask |= ChangeMask.ORIENT;
                change.Orient = new Orientation { Q = next.Orient.Q };
            }
            return change;
        }

        /// <inheritdoc/>
        public int ChangeEid(Change change)
        {
            return change.Eid;
        }

        /// <summary>
        /// ACK-33: a pose sent with its age is recorded at the tick it was true: the record's
        /// Measured is the frame's tick minus the age.
        /// </summary>
        public EntityState Apply(EntityState b, Change change, uint tick)
        {
            ChangeMask mask = change.Mask;
            EntityState r;
            if (b != null)
            {
                r = new EntityState
                {
                    X = b.X,
                    Y = b.Y,
                    Z = b.Z,
                    Yaw = b.Yaw,
                    Flags = b.Flags,
                    Measured = b.Measured,
                    Hp = b.Hp,
                    Armor = b.Armor,
                    Vehicle = b.Vehicle,
                    Seat = b.Seat,
                    // Records are never edited in place (IAckedSchema), so the base's
                    // orientation may be shared.
                    Orient = b.Orient,
                };
            }
            else
            {
                ChangeMask whole = ChangeMask.POSE | ChangeMask.HEALTH | ChangeMask.VEHICLE;
                if ((mask & whole) != whole)
                {
                    throw new Inapplicable("an entity comes whole without every group");
                }
                r = new EntityState();
            }
            PoseFull full = change.PoseFull;
            if (full != null)
            {
                r.X = Grid(full.X);
                r.Y = Grid(full.Y);
                r.Z = Grid(full.Z);
                r.Yaw = AsU16(RoundHalfAway(full.Yaw / YawFull));
                // The tier is the pose's; ORIENTED is the orientation's and stays.
                r.Flags |= StateFlags.POSE_FULL;
            }
            PoseStep step = change.PoseStep;
            if (step != null)
            {
                int ox, oy, oz;
                StepOrigin(b, out ox, out oy, out oz);
                // The origin lies in the box and a step is an i16: the sum is always an i32.
                r.X = ox + step.Dx;
                r.Y = oy + step.Dy;
                r.Z = oz + step.Dz;
                r.Yaw = (ushort)((AsU16(RoundHalfAway(step.Yaw / YawStep)) << 8) & 0xffff);
                r.Flags &= ~StateFlags.POSE_FULL;
            }
            if ((mask & ChangeMask.POSE) != 0)
            {
                long measured = (long)tick - (change.Age ?? 0);
                if (measured < 0)
                {
                    throw new Inapplicable("a pose measured before tick 0");
                }
                r.Measured = (uint)measured;
            }
            Health health = change.Health;
            if (health != null)
            {
                r.Hp = health.Hp;
                r.Armor = health.Armor;
            }
            Vehicle v = change.Vehicle;
            if (v != null)
            {
                r.Vehicle = v.Vehicle_;
                r.Seat = v.Seat;
            }
            Orientation o = change.Orient;
            if (o != null)
            {
                // A copy: the change's objects may be a reader's, reused by its next frame.
                r.Orient = new Orientation { Q = o.Q };
                r.Flags |= StateFlags.ORIENTED;
            }
            return r;
        }

        /// <inheritdoc/>
        public bool SameRecord(EntityState a, EntityState b)
        {
            return SamePose(a, b) && a.Flags == b.Flags && a.Hp == b.Hp && a.Armor == b.Armor && a.Vehicle == b.Vehicle
                && a.Seat == b.Seat && SameOrient(a.Orient, b.Orient);
        }

        /// <summary>
        /// The generated EntityState writer's 24 bytes (little-endian; 28 with an orientation:
        /// its 29 bits, least significant first, padded with zeros to 4 bytes, as the generated
        /// Orientation writer writes them), hashed as they would be written, without a buffer:
        /// FNV-1a 32 (offset basis 2166136261, prime 16777619) a byte at a time, written out
        /// here because the check hashes every record of the state every CHECK_EVERY frames and
        /// Mono inlines no call.
        ///
        /// A record no frame and no presenter makes hashes the bytes the generated writer (and
        /// the Rust codec's write_record) leaves written before it refuses it: reserved flag
        /// bits end them after the yaw, an ORIENTED bit and an orientation that disagree after
        /// the seat, a quaternion its rules refuse adds nothing.
        /// </summary>
        public uint HashRecord(EntityState r, uint hash)
        {
            const uint P = Fnv.Prime;
            uint h = hash;
            unchecked
            {
                uint x = (uint)r.X, y = (uint)r.Y, z = (uint)r.Z, m = r.Measured;
                h = (h ^ (x & 0xff)) * P;
                h = (h ^ ((x >> 8) & 0xff)) * P;
                h = (h ^ ((x >> 16) & 0xff)) * P;
                h = (h ^ (x >> 24)) * P;
                h = (h ^ (y & 0xff)) * P;
                h = (h ^ ((y >> 8) & 0xff)) * P;
                h = (h ^ ((y >> 16) & 0xff)) * P;
                h = (h ^ (y >> 24)) * P;
                h = (h ^ (z & 0xff)) * P;
                h = (h ^ ((z >> 8) & 0xff)) * P;
                h = (h ^ ((z >> 16) & 0xff)) * P;
                h = (h ^ (z >> 24)) * P;
                h = (h ^ (uint)(r.Yaw & 0xff)) * P;
                h = (h ^ (uint)(r.Yaw >> 8)) * P;
                if (((int)r.Flags & ~(int)(StateFlags.POSE_FULL | StateFlags.ORIENTED)) != 0)
                {
                    return h;
                }
                h = (h ^ (uint)r.Flags) * P;
                h = (h ^ (m & 0xff)) * P;
                h = (h ^ ((m >> 8) & 0xff)) * P;
                h = (h ^ ((m >> 16) & 0xff)) * P;
                h = (h ^ (m >> 24)) * P;
                h = (h ^ r.Hp) * P;
                h = (h ^ r.Armor) * P;
                h = (h ^ (uint)(r.Vehicle & 0xff)) * P;
                h = (h ^ (uint)(r.Vehicle >> 8)) * P;
                h = (h ^ r.Seat) * P;
                Orientation o = r.Orient;
                if (o != null && (r.Flags & StateFlags.ORIENTED) != 0 && SmallestThree.Check(o.Q, OrientBits) == null)
                {
                    // `Orientation`'s 29 bits: largest (u2), then the three sent components
                    // (i9, two's complement), then three zero padding bits.
                    uint v = (uint)o.Q.Largest | ((uint)o.Q.A & 0x1ff) << 2 | ((uint)o.Q.B & 0x1ff) << 11
                        | ((uint)o.Q.C & 0x1ff) << 20;
                    h = (h ^ (v & 0xff)) * P;
                    h = (h ^ ((v >> 8) & 0xff)) * P;
                    h = (h ^ ((v >> 16) & 0xff)) * P;
                    h = (h ^ (v >> 24)) * P;
                }
            }
            return h;
        }

        /// <inheritdoc/>
        public uint? Measured(EntityState r)
        {
            return r.Measured;
        }

        /// <inheritdoc/>
        public bool? PoseFull(EntityState r)
        {
            return (r.Flags & StateFlags.POSE_FULL) != 0;
        }

        /// <inheritdoc/>
        public byte[] EncodeAck(AckContent<Input> a)
        {
            Ack ack = new Ack
            {
                AckTick = a.AckTick,
                Flags = a.KeyframeRequest ? AckFlags.KEYFRAME_REQUEST : 0,
                FirstSeq = a.Inputs.Length > 0 ? a.FirstSeq : (uint?)null,
                Inputs = a.Inputs,
            };
            return ack.Encode();
        }

        /// <inheritdoc/>
        public AckContent<Input> DecodeAck(byte[] bytes)
        {
            Ack a = Ack.Decode(bytes);
            return new AckContent<Input>
            {
                AckTick = a.AckTick,
                KeyframeRequest = (a.Flags & AckFlags.KEYFRAME_REQUEST) != 0,
                FirstSeq = a.FirstSeq ?? 0,
                Inputs = a.Inputs,
            };
        }

        /// <inheritdoc/>
        public uint InputTick(Input input)
        {
            return input.Tick;
        }

        /// <inheritdoc/>
        public abstract byte[] EncodeFrame(AckedFrame<Change, Event> f);

        /// <inheritdoc/>
        public abstract void DecodeFrameInto(byte[] bytes, AckedFrame<Change, Event> into);
    }

    /// <summary>The reference protocol's acked schema (acked.wire): ReferenceSchema with frames of kind 6.</summary>
    public sealed class AckedReference : ReferenceSchema
    {
        /// <summary>The one instance (the schema holds no state).</summary>
        public static readonly AckedReference Schema = new AckedReference();

        /// <summary>The name of its frames (kind 6) in a session: <c>acked</c>.</summary>
        public const string FrameName = "acked";

        /// <inheritdoc/>
        public override byte[] EncodeFrame(AckedFrame<Change, Event> f)
        {
            if (f.Events.Length > 255)
            {
                throw Over("event_count");
            }
            Acked acked = new Acked
            {
                Tick = f.Tick,
                BaseTick = f.BaseTick,
                LastSeq = f.LastSeq,
                InputBuffer = f.InputBuffer,
                Flags = (f.Keyframe ? AckedFlags.KEYFRAME : 0) | (f.Check.HasValue ? AckedFlags.CHECK : 0),
                Check = f.Check,
                Removed = f.Removed,
                Changes = f.Changes,
                FirstSerial = f.Events.Length > 0 ? f.FirstSerial : (uint?)null,
                Events = f.Events,
            };
            return acked.Encode();
        }

        /// <summary>
        /// The generated Acked.Decode, with a reader of the common frame at once in front of it
        /// (FastFrame): what that accepts the generated reader accepts as the same frame, and
        /// anything else (a fault, events) goes through the generated reader, which tells the error
        /// where it is. Then ACK-4: a keyframe applies onto nothing, and its base_tick is 0.
        /// </summary>
        public override void DecodeFrameInto(byte[] bytes, AckedFrame<Change, Event> into)
        {
            if (FastFrame(bytes, into))
            {
                return;
            }
            Acked f = Acked.Decode(bytes);
            HeaderInto(into, f.Tick, f.BaseTick, f.LastSeq, f.InputBuffer, f.Flags, f.Check, f.Removed, f.FirstSerial, f.Events);
            into.Changes = f.Changes;
        }

        /// <summary>
        /// A frame's header, as read, into <paramref name="into"/>: everything but the changes,
        /// which are the caller's (kind 6's as read, kind 12's converted). Kind 6's DecodeFrameInto
        /// (both its paths) and kind 12's AckedPackedReference.UnpackFrameInto (whose header is
        /// kind 6's field for field) all come through here. ACK-4: a keyframe applies onto nothing,
        /// and its base_tick is 0: a keyframe naming a base is <c>invalid_condition</c> at byte 5
        /// (both kinds' base_tick starts there), <c>base_tick</c>, thrown before <paramref
        /// name="into"/> is touched.
        /// </summary>
        internal static void HeaderInto(
            AckedFrame<Change, Event> into, uint tick, uint baseTick, uint lastSeq, byte inputBuffer, AckedFlags flags,
            uint? check, ushort[] removed, uint? firstSerial, Event[] events)
        {
            bool keyframe = (flags & AckedFlags.KEYFRAME) != 0;
            if (keyframe && baseTick != 0)
            {
                throw new DecodeError(ErrorKind.InvalidCondition, 5, -1).Within("base_tick");
            }
            into.Tick = tick;
            into.BaseTick = baseTick;
            into.LastSeq = lastSeq;
            into.InputBuffer = inputBuffer;
            into.Keyframe = keyframe;
            into.Check = check;
            into.Removed = removed;
            into.FirstSerial = firstSerial ?? 0;
            into.Events = events;
        }

        /// <summary>
        /// The objects a frame read by FastFrame into one AckedFrame is made of (its Scratch),
        /// reused by the next frame read into it: the i-th change of every frame is the same
        /// Change, with the same groups, refilled.
        /// </summary>
        sealed class Pool
        {
            public readonly List<Change> Changes = new List<Change>();
            public readonly List<PoseFull> Fulls = new List<PoseFull>();
            public readonly List<PoseStep> Steps = new List<PoseStep>();
            public readonly List<Health> Healths = new List<Health>();
            public readonly List<Vehicle> Vehicles = new List<Vehicle>();
            public readonly List<Orientation> Orients = new List<Orientation>();
        }

        static readonly ushort[] NoRemoved = new ushort[0];
        static readonly Event[] NoEvents = new Event[0];

        static ushort U16(byte[] b, int p)
        {
            return (ushort)(b[p] | b[p + 1] << 8);
        }

        static uint U32(byte[] b, int p)
        {
            return (uint)(b[p] | b[p + 1] << 8 | b[p + 2] << 16 | b[p + 3] << 24);
        }

        static T Slot<T>(List<T> pool, int i) where T : class, new()
        {
            while (pool.Count <= i)
            {
                pool.Add(new T());
            }
            return pool[i];
        }

        /// <summary>The low 9 bits of <paramref name="v"/> as a two's complement i9.</summary>
        static short Signed9(uint v)
        {
            int low = (int)(v & 0x1ff);
            return (short)(low >= 0x100 ? low - 0x200 : low);
        }

        static bool Finite(float v)
        {
            return !float.IsNaN(v) && !float.IsInfinity(v);
        }

        /// <summary>
        /// Reads an acked frame without events at once into <paramref name="into"/> (its changes'
        /// objects reused from the frame's Scratch), with the generated reader's checks (the kind,
        /// reserved bits, the mask's <c>requires</c>, counts against the bytes left, finite
        /// floats, an orientation's zero padding and smallest three's canonical rules, no
        /// trailing byte); returns false, having read nothing that counts, for anything
        /// else: a frame with events, or one the generated reader refuses (it then says why and
        /// where). Throws the generated path's error for a keyframe naming a base, as
        /// DecodeFrameInto does after it. Every index is checked against the length before it is
        /// read, so no bytes make it read out of bounds.
        /// </summary>
        static bool FastFrame(byte[] b, AckedFrame<Change, Event> into)
        {
            int n = b.Length;
            if (n < 20 || b[0] != 6)
            {
                return false;
            }
            int flags = b[14];
            if ((flags & ~(int)(AckedFlags.KEYFRAME | AckedFlags.CHECK)) != 0)
            {
                return false;
            }
            int removedCount = U16(b, 15);
            int changedCount = U16(b, 17);
            int p = 19;
            uint? check = null;
            if ((flags & (int)AckedFlags.CHECK) != 0)
            {
                if (n - p < 4)
                {
                    return false;
                }
                check = U32(b, p);
                p += 4;
            }
            if (removedCount * 2 > n - p)
            {
                return false;
            }
            if (changedCount * 4 > n - p - removedCount * 2)
            {
                return false;
            }
            Pool pool = into.Scratch as Pool;
            if (pool == null)
            {
                pool = new Pool();
                into.Scratch = pool;
            }
            ushort[] removed = removedCount == 0 ? NoRemoved : new ushort[removedCount];
            for (int i = 0; i < removedCount; i++, p += 2)
            {
                removed[i] = U16(b, p);
            }
            Change[] changes = new Change[changedCount];
            for (int i = 0; i < changedCount; i++)
            {
                if (n - p < 4)
                {
                    return false;
                }
                ushort eid = U16(b, p);
                int mask = U16(b, p + 2);
                // acked.wire's ChangeMask: bits 0 to 3, 14 and 15 named, 14 and 15 requiring bit 0.
                if ((mask & ~0xc00f) != 0 || ((mask & 0xc000) != 0 && (mask & 1) == 0))
                {
                    return false;
                }
                bool pose = (mask & (int)ChangeMask.POSE) != 0;
                bool full = (mask & (int)ChangeMask.POSE_FULL) != 0;
                int len = 4 + ((mask & (int)ChangeMask.POSE_AGE) != 0 ? 1 : 0) + (pose ? (full ? 14 : 7) : 0)
                    + ((mask & (int)ChangeMask.HEALTH) != 0 ? 2 : 0) + ((mask & (int)ChangeMask.VEHICLE) != 0 ? 3 : 0)
                    + ((mask & (int)ChangeMask.ORIENT) != 0 ? 4 : 0);
                if (n - p < len)
                {
                    return false;
                }
                p += 4;
                Change c = Slot(pool.Changes, i);
                c.Eid = eid;
                c.Mask = (ChangeMask)mask;
                c.Age = null;
                c.PoseFull = null;
                c.PoseStep = null;
                c.Health = null;
                c.Vehicle = null;
                c.Orient = null;
                if ((mask & (int)ChangeMask.POSE_AGE) != 0)
                {
                    c.Age = b[p];
                    p += 1;
                }
                if (pose && full)
                {
                    float x = Bits.ToSingle(U32(b, p));
                    float y = Bits.ToSingle(U32(b, p + 4));
                    float z = Bits.ToSingle(U32(b, p + 8));
                    if (!(Finite(x) && Finite(y) && Finite(z)))
                    {
                        return false;
                    }
                    PoseFull f = Slot(pool.Fulls, i);
                    f.X = x;
                    f.Y = y;
                    f.Z = z;
                    // As the generated reader scales it, to the same double.
                    f.Yaw = U16(b, p + 12) * (360.0 / 65536.0);
                    c.PoseFull = f;
                    p += 14;
                }
                else if (pose)
                {
                    PoseStep s = Slot(pool.Steps, i);
                    s.Dx = unchecked((short)U16(b, p));
                    s.Dy = unchecked((short)U16(b, p + 2));
                    s.Dz = unchecked((short)U16(b, p + 4));
                    s.Yaw = b[p + 6] * (360.0 / 256.0);
                    c.PoseStep = s;
                    p += 7;
                }
                if ((mask & (int)ChangeMask.HEALTH) != 0)
                {
                    Health h = Slot(pool.Healths, i);
                    h.Hp = b[p];
                    h.Armor = b[p + 1];
                    c.Health = h;
                    p += 2;
                }
                if ((mask & (int)ChangeMask.VEHICLE) != 0)
                {
                    Vehicle v = Slot(pool.Vehicles, i);
                    v.Vehicle_ = U16(b, p);
                    v.Seat = b[p + 2];
                    c.Vehicle = v;
                    p += 3;
                }
                if ((mask & (int)ChangeMask.ORIENT) != 0)
                {
                    // `Orientation`: 29 bits least significant first (largest: u2, then three
                    // i9), three zero padding bits; anything else (and any value the
                    // quaternion's rules refuse) is left to the generated reader, which says
                    // where and why.
                    uint bits = U32(b, p);
                    SmallestThree q = new SmallestThree((byte)(bits & 3), Signed9(bits >> 2), Signed9(bits >> 11), Signed9(bits >> 20));
                    if (bits >> 29 != 0 || SmallestThree.Check(q, OrientBits) != null)
                    {
                        return false;
                    }
                    Orientation o = Slot(pool.Orients, i);
                    o.Q = q;
                    c.Orient = o;
                    p += 4;
                }
                changes[i] = c;
            }
            // No events, and nothing after: anything else is the generated reader's.
            if (p != n - 1 || b[p] != 0)
            {
                return false;
            }
            HeaderInto(into, U32(b, 1), U32(b, 5), U32(b, 9), b[13], (AckedFlags)flags, check, removed, null, NoEvents);
            into.Changes = changes;
            return true;
        }
    }

    // ---- the presenter: each client's S_N ----

    /// <summary>One entity of the server's world (the reference schema), in world units (f32 values).</summary>
    public sealed class WorldEntity
    {
        /// <summary>Which life of its id; bumped by every spawn under the id.</summary>
        public ulong Life;
        /// <summary>East, metres.</summary>
        public float X;
        /// <summary>North, metres.</summary>
        public float Y;
        /// <summary>Up, metres.</summary>
        public float Z;
        /// <summary>Heading, degrees.</summary>
        public float Yaw;
        /// <summary>Hit points.</summary>
        public byte Hp;
        /// <summary>Armour points.</summary>
        public byte Armor;
        /// <summary>The vehicle it is in, 0 on foot.</summary>
        public ushort Vehicle;
        /// <summary>The seat taken.</summary>
        public byte Seat;
        /// <summary>
        /// Its orientation, a quaternion (any norm: it is normalised), or null for an entity
        /// without one. An entity keeps the orientation it was last given for its life: null
        /// after a value presents the last one again (the wire has no way to take an
        /// orientation away, see AckedReference.Diff).
        /// </summary>
        public Xyzw? Orient;
    }

    /// <summary>A quaternion of the world, its components as f32 values (any norm).</summary>
    public struct Xyzw
    {
        /// <summary>The i component.</summary>
        public float X;
        /// <summary>The j component.</summary>
        public float Y;
        /// <summary>The k component.</summary>
        public float Z;
        /// <summary>The real component.</summary>
        public float W;

        /// <summary>The quaternion (<paramref name="x"/>, <paramref name="y"/>, <paramref name="z"/>, <paramref name="w"/>).</summary>
        public Xyzw(float x, float y, float z, float w)
        {
            X = x;
            Y = y;
            Z = z;
            W = w;
        }
    }

    /// <summary>How a client sees the world: its own entities, the near tier's boundary, the far rate.</summary>
    public sealed class ViewConfig
    {
        /// <summary>The client's own entities; the lowest present is where it stands.</summary>
        public ushort[] Own = new ushort[0];
        /// <summary>The near tier, with hysteresis (SRV-5 to SRV-9).</summary>
        public TierBoundary Tier = new TierBoundary(12, 14);
        /// <summary>A far entity's pose is due on the ticks where (tick + eid) % FarEvery == 0.</summary>
        public uint FarEvery = 6;
    }

    /// <summary>
    /// Computes each tick's S_N for one client of the reference schema, as the Rust codec's
    /// <c>Presenter</c>. ACK-17, ACK-18: per client, the server computes S_N, the state an ordered
    /// client holds after frame N (records, pose full or not, tier, measurement tick), as the
    /// ordered encoder would: the changes, far poses only when due or when their rest changed, the
    /// client's own entities with full poses.
    ///
    /// Per entity of the world: new (or a new life), whole, its pose measured now; near (the
    /// client's own, or within the tier boundary, judged with hysteresis against the tier it was
    /// sent at last) or outside the quantized box (PoseReach), the pose comes full whenever it
    /// differs; far, the pose comes quantized (1/512 m, 256 yaw steps) only when it is due, its
    /// rest or its tier changed, and it differs; any pose is measured again when PoseRefresh old.
    /// The orientation (issue 19), when the world gives one, is quantized as smallest three
    /// (SmallestThree.FromXyzw at OrientBits) on every tick, whatever the pose's tier and rate
    /// (the diff sends it only when it differs), and kept for the entity's life.
    /// </summary>
    public sealed class Presenter
    {
        /// <summary>A pose is measured again at least this often (in ticks), so that its age fits POSE_AGE's u8.</summary>
        public const uint PoseRefresh = 255;

        /// <summary>The view it computes for.</summary>
        public readonly ViewConfig Config;
        ServerEntry<EntityState>[] prev = new ServerEntry<EntityState>[0];
        bool[] near = new bool[0];
        readonly List<int> eids = new List<int>();

        /// <summary>A presenter for a client that holds nothing yet.</summary>
        public Presenter(ViewConfig config)
        {
            Config = config;
        }

        /// <summary>Metres (an f32) as whole steps of 1/512 m (acked.wire, EntityState).</summary>
        static int Steps(float v)
        {
            if (float.IsNaN(v) || float.IsInfinity(v))
            {
                return 0;
            }
            double s = AckedReference.RoundHalfAway((double)v * 512);
            return (int)Math.Min(16777215.0, Math.Max(-16777215.0, s));
        }

        /// <summary>Degrees (an f32) as 65536 steps a turn.</summary>
        static int YawSteps(float deg)
        {
            if (float.IsNaN(deg) || float.IsInfinity(deg))
            {
                return 0;
            }
            double r = (double)deg % 360.0;
            if (r < 0)
            {
                r += 360;
            }
            return (int)((long)AckedReference.RoundHalfAway(r / 360 * 65536) & 0xffff);
        }

        /// <summary>S_N for tick <paramref name="tick"/> of <paramref name="world"/> (entities by id, 0 to 65,535).</summary>
        public ServerEntry<EntityState>[] Present(uint tick, IDictionary<int, WorldEntity> world)
        {
            ViewConfig config = Config;
            // Where the client stands: its own entity with the lowest id present, or the origin.
            int vx = 0, vy = 0, vz = 0;
            int lowest = int.MaxValue;
            foreach (ushort eid in config.Own)
            {
                WorldEntity w;
                if (world.TryGetValue(eid, out w) && eid < lowest)
                {
                    lowest = eid;
                    vx = Steps(w.X);
                    vy = Steps(w.Y);
                    vz = Steps(w.Z);
                }
            }
            eids.Clear();
            eids.AddRange(world.Keys);
            eids.Sort();
            ServerEntry<EntityState>[] next = new ServerEntry<EntityState>[eids.Count];
            bool[] nearNext = new bool[eids.Count];
            int h = 0;
            for (int n = 0; n < eids.Count; n++)
            {
                int eid = eids[n];
                WorldEntity w = world[eid];
                while (h < prev.Length && prev[h].Eid < eid)
                {
                    h++;
                }
                EntityState p = null;
                bool wasNear = false;
                if (h < prev.Length && prev[h].Eid == eid)
                {
                    if (prev[h].Life == w.Life)
                    {
                        p = prev[h].Record;
                        wasNear = near[h];
                    }
                    h++;
                }
                int x = Steps(w.X);
                int y = Steps(w.Y);
                int z = Steps(w.Z);
                bool own = Array.IndexOf(config.Own, (ushort)eid) >= 0;
                TierBoundary tier = config.Tier;
                // A distance is never negative: a negative (or NaN) radius admits nothing.
                float radius = wasNear ? tier.Leave : tier.Enter;
                bool isNear = own;
                if (!isNear && radius >= 0)
                {
                    double dx = (x - (double)vx) / 512;
                    double dy = (y - (double)vy) / 512;
                    double dz = (z - (double)vz) / 512;
                    isNear = tier.Admits(wasNear, (float)Math.Sqrt(dx * dx + dy * dy + dz * dz));
                }
                bool box = Math.Abs((long)x) <= AckedReference.PoseReach && Math.Abs((long)y) <= AckedReference.PoseReach
                    && Math.Abs((long)z) <= AckedReference.PoseReach;
                bool full = isNear || !box;
                int yawFull = YawSteps(w.Yaw);
                // 256 steps a turn, kept as a multiple of 256 of the 65536.
                ushort yaw = (ushort)(full ? yawFull : (((yawFull + 128) >> 8) << 8) & 0xffff);
                StateFlags flags = full ? StateFlags.POSE_FULL : 0;
                // The orientation is kept current on every tick it changes, like health,
                // whatever the pose's tier and rate; the entity keeps its last one when the
                // world drops it.
                Orientation orient;
                if (w.Orient.HasValue)
                {
                    Xyzw q = w.Orient.Value;
                    SmallestThree s3 = SmallestThree.FromXyzw(q.X, q.Y, q.Z, q.W, AckedReference.OrientBits);
                    // The record's object again when it did not turn (records are never edited
                    // in place), so a still entity costs no allocation.
                    orient = p != null && p.Orient != null && p.Orient.Q.Equals(s3) ? p.Orient : new Orientation { Q = s3 };
                }
                else
                {
                    orient = p == null ? null : p.Orient;
                }
                if (orient != null)
                {
                    flags |= StateFlags.ORIENTED;
                }
                EntityState record;
                bool send;
                if (p == null)
                {
                    send = true;
                }
                else
                {
                    bool restChanged = p.Hp != w.Hp || p.Armor != w.Armor || p.Vehicle != w.Vehicle || p.Seat != w.Seat;
                    bool tierChanged = isNear != wasNear;
                    bool differs = p.X != x || p.Y != y || p.Z != z || p.Yaw != yaw
                        || (p.Flags & StateFlags.POSE_FULL) != (flags & StateFlags.POSE_FULL);
                    bool refresh = (long)tick - p.Measured >= PoseRefresh;
                    bool due = isNear || restChanged || tierChanged
                        || unchecked((uint)(tick + (uint)eid)) % Math.Max(1u, config.FarEvery) == 0;
                    send = refresh || (due && differs);
                }
                if (send)
                {
                    record = new EntityState
                    {
                        X = x,
                        Y = y,
                        Z = z,
                        Yaw = yaw,
                        Flags = flags,
                        Measured = tick,
                        Hp = w.Hp,
                        Armor = w.Armor,
                        Vehicle = w.Vehicle,
                        Seat = w.Seat,
                        Orient = orient,
                    };
                }
                else
                {
                    record = new EntityState
                    {
                        X = p.X,
                        Y = p.Y,
                        Z = p.Z,
                        Yaw = p.Yaw,
                        // The pose's tier as it was sent; ORIENTED as the orientation is now.
                        Flags = (p.Flags & ~StateFlags.ORIENTED) | (orient != null ? StateFlags.ORIENTED : 0),
                        Measured = p.Measured,
                        Hp = w.Hp,
                        Armor = w.Armor,
                        Vehicle = w.Vehicle,
                        Seat = w.Seat,
                        Orient = orient,
                    };
                }
                next[n] = new ServerEntry<EntityState>((ushort)eid, w.Life, record);
                nearNext[n] = isNear;
            }
            prev = next;
            near = nearNext;
            return next;
        }
    }

    // ---- the session halves ----

    /// <summary>A shown entity, read-only, for drawing: positions in steps of 1/512 m and in metres, yaw in steps and degrees.</summary>
    public readonly struct ShownEntity
    {
        /// <summary>The entity's id.</summary>
        public readonly int Eid;
        /// <summary>East, steps of 1/512 m.</summary>
        public readonly int X;
        /// <summary>North, steps of 1/512 m.</summary>
        public readonly int Y;
        /// <summary>Up, steps of 1/512 m.</summary>
        public readonly int Z;
        /// <summary>Heading, 65536 steps a turn.</summary>
        public readonly ushort Yaw;
        /// <summary>Whether its pose came full (near) rather than quantized (far).</summary>
        public readonly bool PoseFull;
        /// <summary>The tick its pose was measured at.</summary>
        public readonly uint Measured;
        /// <summary>Hit points.</summary>
        public readonly byte Hp;
        /// <summary>Armour points.</summary>
        public readonly byte Armor;
        /// <summary>The vehicle it is in, 0 on foot.</summary>
        public readonly ushort Vehicle;
        /// <summary>The seat taken.</summary>
        public readonly byte Seat;
        /// <summary>Its orientation as smallest three (9 bits a component), or null for none.</summary>
        public readonly SmallestThree? Orient;

        /// <summary>The view of <paramref name="r"/>, entity <paramref name="eid"/>.</summary>
        public ShownEntity(int eid, EntityState r)
        {
            Eid = eid;
            X = r.X;
            Y = r.Y;
            Z = r.Z;
            Yaw = r.Yaw;
            PoseFull = (r.Flags & StateFlags.POSE_FULL) != 0;
            Measured = r.Measured;
            Hp = r.Hp;
            Armor = r.Armor;
            Vehicle = r.Vehicle;
            Seat = r.Seat;
            Orient = r.Orient == null ? (SmallestThree?)null : r.Orient.Q;
        }

        /// <summary>Its orientation as a unit quaternion (x, y, z, w) for drawing; the identity when it has none.</summary>
        public Xyzw Rotation
        {
            get
            {
                if (!Orient.HasValue)
                {
                    return new Xyzw(0, 0, 0, 1);
                }
                float x, y, z, w;
                Orient.Value.ToXyzw(AckedReference.OrientBits, out x, out y, out z, out w);
                return new Xyzw(x, y, z, w);
            }
        }

        /// <summary>East, metres.</summary>
        public float XMetres { get { return X / 512f; } }
        /// <summary>North, metres.</summary>
        public float YMetres { get { return Y / 512f; } }
        /// <summary>Up, metres.</summary>
        public float ZMetres { get { return Z / 512f; } }
        /// <summary>Heading, degrees.</summary>
        public float YawDegrees { get { return (float)(Yaw * AckedReference.YawFull); } }
    }

    /// <summary>
    /// The client's half of acked snapshots, the facade a Unity MonoBehaviour or a Godot node
    /// drives (the Rust codec's <c>session::AckedClient</c>, the TS and C++ runtimes'
    /// AckedClientHalf): an AckedDecoder and the kind 7 AckWriter. A frame is an <c>acked</c>
    /// frame, reported as its Delivery; a tick takes the player's input (or null) and sends one
    /// <c>ack</c> acknowledging the newest frame applied, with the inputs last_seq does not cover
    /// yet, KEYFRAME_REQUEST set after a failed check until a keyframe applies. Over the
    /// bit-packed schema (AckedPackedReference, issue 19) its frames are kind 12, named
    /// <c>acked_packed</c>, and its acks the same.
    ///
    /// Sans-IO: the game owns the socket and the clock; poll PollTransmit after each call.
    /// </summary>
    public sealed class AckedClientHalf : ISessionHalf<Input, Delivery<Event>>
    {
        /// <summary>The decoder, for its lower-level methods (its counters, its held states).</summary>
        public readonly AckedDecoder<EntityState, Change, Event, Input> Decoder;

        readonly IAckedSchema<EntityState, Change, Event, Input> schema;
        readonly string frameName;
        readonly AckWriter<Input> writer;
        readonly Outbox outbox = new Outbox();

        /// <summary>A fresh client of kind 6 frames (<c>acked</c>); the writer repeats at most <paramref name="keep"/> inputs (1 to 255) until covered.</summary>
        public AckedClientHalf(ulong keep = 16) : this(AckedReference.Schema, AckedReference.FrameName, keep)
        {
        }

        /// <summary>
        /// A fresh client over <paramref name="schema"/> (the reference schema or the packed
        /// one), taking frames named <paramref name="frameName"/>; the writer repeats at most
        /// <paramref name="keep"/> inputs (1 to 255) until covered.
        /// </summary>
        public AckedClientHalf(IAckedSchema<EntityState, Change, Event, Input> schema, string frameName, ulong keep = 16)
        {
            this.schema = schema;
            this.frameName = frameName;
            Decoder = new AckedDecoder<EntityState, Change, Event, Input>(schema);
            writer = new AckWriter<Input>(keep);
        }

        /// <summary>The server's frame (<c>acked</c>, or the schema's name) arrives; any other name is a SessionError. A peer's bytes never throw: the Delivery says what became of them.</summary>
        public Delivery<Event> HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, frameName);
            // The writer stops repeating what the frame's last_seq covers at the next tick.
            return Decoder.Deliver(bytes);
        }

        /// <summary>A client tick: queues one <c>ack</c> frame, with <paramref name="input"/> (null for none) added to those repeated.</summary>
        public void HandleTick(Now now, Input input)
        {
            writer.Confirm(Decoder.LastSeq);
            if (input != null)
            {
                writer.Push(input);
            }
            AckContent<Input> ack = writer.Frame(Decoder.AckTick, Decoder.KeyframeWanted);
            byte[] bytes;
            try
            {
                bytes = schema.EncodeAck(ack);
            }
            catch (EncodeError e)
            {
                throw new SessionError(SessionError.Encode, e.Message, e);
            }
            outbox.Push(new Transmit("ack", bytes, false));
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return outbox.Poll();
        }

        /// <summary>The FNV-1a 32 of the shown state (the check's value: CHECK-2).</summary>
        public uint StateHash()
        {
            return Decoder.StateHash();
        }

        /// <summary>The tick of the last frame shown, if any.</summary>
        public uint? ShownTick
        {
            get { return Decoder.ShownTick; }
        }

        /// <summary>How many entities are shown.</summary>
        public int ShownCount
        {
            get { return Decoder.State.Count; }
        }

        /// <summary>Whether entity <paramref name="eid"/> is shown, and its view.</summary>
        public bool TryGetShown(int eid, out ShownEntity entity)
        {
            EntityState r = Decoder.State.Get(eid);
            entity = r == null ? default(ShownEntity) : new ShownEntity(eid, r);
            return r != null;
        }

        /// <summary>Every shown entity, ascending by id, for drawing (read-only views; no list is made).</summary>
        public IEnumerable<ShownEntity> Shown
        {
            get
            {
                LiveState<EntityState> live = Decoder.State;
                int span = live.Span;
                for (int eid = 0; eid < span; eid++)
                {
                    EntityState r = live.Get(eid);
                    if (r != null)
                    {
                        yield return new ShownEntity(eid, r);
                    }
                }
            }
        }
    }

    /// <summary>What the acked server's world is on a tick.</summary>
    public sealed class AckedTick
    {
        /// <summary>The world: entities by id.</summary>
        public IDictionary<int, WorldEntity> World;
        /// <summary>The tick's new events.</summary>
        public IList<Event> Events;
    }

    /// <summary>What an <c>ack</c> did to the acked server.</summary>
    public sealed class AckedAckReport
    {
        /// <summary>The encoder's verdict.</summary>
        public AckVerdict Verdict;
        /// <summary>The acknowledged base now.</summary>
        public uint? Base;
        /// <summary>The newest input sequence received.</summary>
        public uint LastSeq;
        /// <summary>A copy of the encoder's counters.</summary>
        public EncoderCounters Counters;
    }

    /// <summary>
    /// The server's half of acked snapshots (the Rust codec's <c>session::AckedServer</c>): a
    /// Presenter and an acked encoder over an input sink. A tick takes the world and the tick's
    /// events and queues one <c>acked</c> frame (reliable over RELIABLE_ABOVE bytes); a frame is
    /// the client's <c>ack</c>, judged against the tick of <c>now</c>. Over the bit-packed
    /// schema (AckedPackedReference, issue 19) its frames are kind 12, named
    /// <c>acked_packed</c>.
    /// </summary>
    public sealed class AckedServerHalf : ISessionHalf<AckedTick, AckedAckReport>
    {
        /// <summary>The client's view.</summary>
        public readonly Presenter Presenter;

        /// <summary>The encoder, for its lower-level methods.</summary>
        public readonly AckedEncoder<EntityState, Change, Event, Input> Encoder;

        readonly Outbox outbox = new Outbox();
        readonly string frameName;

        /// <summary>The half over <paramref name="presenter"/>, its encoder's inputs going to <paramref name="inputs"/>, sending kind 6 frames (<c>acked</c>).</summary>
        public AckedServerHalf(Presenter presenter, IInputSink<Input> inputs)
            : this(presenter, inputs, AckedReference.Schema, AckedReference.FrameName)
        {
        }

        /// <summary>
        /// The half over <paramref name="presenter"/>, its encoder's inputs going to
        /// <paramref name="inputs"/>, its frames written by <paramref name="schema"/> (the
        /// reference schema or the packed one) and named <paramref name="frameName"/>.
        /// </summary>
        public AckedServerHalf(Presenter presenter, IInputSink<Input> inputs,
            IAckedSchema<EntityState, Change, Event, Input> schema, string frameName)
        {
            Presenter = presenter;
            Encoder = new AckedEncoder<EntityState, Change, Event, Input>(schema, inputs);
            this.frameName = frameName;
        }

        /// <summary>The client's <c>ack</c> frame arrives; an undecodable one is a SessionError of kind <c>decode</c>.</summary>
        public AckedAckReport HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, "ack");
            AckVerdict verdict;
            try
            {
                verdict = Encoder.Receive(now.Tick, bytes);
            }
            catch (DecodeError e)
            {
                throw new SessionError(SessionError.Decode, e.Message, e);
            }
            return new AckedAckReport
            {
                Verdict = verdict,
                Base = Encoder.Acked,
                LastSeq = Encoder.LastSeq,
                Counters = Encoder.Counters.Copy(),
            };
        }

        /// <summary>Tick <c>now.Tick</c> passes: presents the world and queues its frame.</summary>
        public void HandleTick(Now now, AckedTick input)
        {
            if (input == null || input.World == null)
            {
                throw new SessionError(SessionError.NoWorld, "the acked server half was ticked without a world");
            }
            uint tick = Session.Tick32(now.Tick);
            ServerEntry<EntityState>[] state = Presenter.Present(tick, input.World);
            Outgoing<Change, Event> sent;
            try
            {
                sent = Encoder.Encode(tick, state, input.Events ?? new Event[0]);
            }
            catch (EncodeError e)
            {
                throw new SessionError(SessionError.Encode, e.Message, e);
            }
            outbox.Push(new Transmit(frameName, sent.Bytes, sent.Reliable));
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return outbox.Poll();
        }
    }
}
