// The reference protocol's acked schema (spec/protocol/acked.wire, seed 000) bound to the
// runtime's generic machines (Runtime/Sessions/Acked.cs), as the Rust codec's `acked::Reference`:
// records are EntityState, changes are Change with POSE_FULL and POSE_AGE, events are Event,
// inputs are Input. Beside it, the server's Presenter (each client's S_N from a world, with the
// near tier's TierBoundary), and the two session halves: AckedClientHalf, the facade a Unity
// MonoBehaviour or a Godot node drives, and AckedServerHalf.
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
    /// <summary>The reference protocol's acked schema (acked.wire).</summary>
    public sealed class AckedReference : IAckedSchema<EntityState, Change, Event, Input>
    {
        /// <summary>The one instance (the schema holds no state).</summary>
        public static readonly AckedReference Schema = new AckedReference();

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

        static EncodeError Over(params string[] path)
        {
            EncodeError e = new EncodeError(ErrorKind.OverWidth);
            for (int i = path.Length - 1; i >= 0; i--)
            {
                e = e.Within(path[i]);
            }
            return e;
        }

        static bool SamePose(EntityState a, EntityState b)
        {
            return a.X == b.X && a.Y == b.Y && a.Z == b.Z && a.Yaw == b.Yaw && a.Flags == b.Flags && a.Measured == b.Measured;
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
        /// Seed 000: "Whether an entity's pose is full or quantized travels with each change
        /// (POSE_FULL), since the base can be any recent frame, and a pose measured in a frame
        /// that was lost travels with its age (POSE_AGE: the ticks between its measurement and
        /// the frame), so the client records it at the tick it was true."
        /// </summary>
        public Change Diff(int eid, EntityState b, EntityState next, uint tick)
        {
            bool pose = b == null || !SamePose(b, next);
            bool health = b == null || b.Hp != next.Hp || b.Armor != next.Armor;
            bool vehicle = b == null || b.Vehicle != next.Vehicle || b.Seat != next.Seat;
            if (!pose && !health && !vehicle)
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
            return change;
        }

        /// <inheritdoc/>
        public int ChangeEid(Change change)
        {
            return change.Eid;
        }

        /// <summary>
        /// Seed 000: "a pose measured in a frame that was lost travels with its age ... so the
        /// client records it at the tick it was true": the record's Measured is the frame's tick
        /// minus the age.
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
                r.Flags = StateFlags.POSE_FULL;
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
                r.Flags = 0;
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
            return r;
        }

        /// <inheritdoc/>
        public bool SameRecord(EntityState a, EntityState b)
        {
            return SamePose(a, b) && a.Hp == b.Hp && a.Armor == b.Armor && a.Vehicle == b.Vehicle && a.Seat == b.Seat;
        }

        /// <summary>
        /// The generated EntityState writer's 24 bytes (little-endian), hashed as they would be
        /// written, without a buffer: FNV-1a 32 (offset basis 2166136261, prime 16777619) a byte
        /// at a time, written out here because the check hashes every record of the state every
        /// CHECK_EVERY frames and Mono inlines no call.
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
        public byte[] EncodeFrame(AckedFrame<Change, Event> f)
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

        /// <summary>The generated Acked.Decode, then DESIGN.md section 3: "flags bit 0 KEYFRAME: the frame applies onto nothing (base_tick is then 0)".</summary>
        public void DecodeFrameInto(byte[] bytes, AckedFrame<Change, Event> into)
        {
            Acked f = Acked.Decode(bytes);
            bool keyframe = (f.Flags & AckedFlags.KEYFRAME) != 0;
            if (keyframe && f.BaseTick != 0)
            {
                throw new DecodeError(ErrorKind.InvalidCondition, 5, -1).Within("base_tick");
            }
            into.Tick = f.Tick;
            into.BaseTick = f.BaseTick;
            into.LastSeq = f.LastSeq;
            into.InputBuffer = f.InputBuffer;
            into.Keyframe = keyframe;
            into.Check = f.Check;
            into.Removed = f.Removed;
            into.Changes = f.Changes;
            into.FirstSerial = f.FirstSerial ?? 0;
            into.Events = f.Events;
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
    }

    /// <summary>How a client sees the world: its own entities, the near tier's boundary, the far rate.</summary>
    public sealed class ViewConfig
    {
        /// <summary>The client's own entities; the lowest present is where it stands.</summary>
        public ushort[] Own = new ushort[0];
        /// <summary>The near tier, with hysteresis (seed 004 §5).</summary>
        public TierBoundary Tier = new TierBoundary(12, 14);
        /// <summary>A far entity's pose is due on the ticks where (tick + eid) % FarEvery == 0.</summary>
        public uint FarEvery = 6;
    }

    /// <summary>
    /// Computes each tick's S_N for one client of the reference schema, as the Rust codec's
    /// <c>Presenter</c>. Seed 000: "The server keeps computing, for each client, what an ordered
    /// client would hold after frame N (S_N: every entity's record, whether its pose came full,
    /// the tier it was sent at and the tick its pose was measured at), exactly as the ordered
    /// encoder does: what changed, a far entity's pose only when it is due or its rest changed,
    /// the client's own entities' pose in full."
    ///
    /// Per entity of the world: new (or a new life), whole, its pose measured now; near (the
    /// client's own, or within the tier boundary, judged with hysteresis against the tier it was
    /// sent at last) or outside the quantized box (PoseReach), the pose comes full whenever it
    /// differs; far, the pose comes quantized (1/512 m, 256 yaw steps) only when it is due, its
    /// rest or its tier changed, and it differs; any pose is measured again when PoseRefresh old.
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
                    bool differs = p.X != x || p.Y != y || p.Z != z || p.Yaw != yaw || p.Flags != flags;
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
                        Flags = p.Flags,
                        Measured = p.Measured,
                        Hp = w.Hp,
                        Armor = w.Armor,
                        Vehicle = w.Vehicle,
                        Seat = w.Seat,
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
    /// yet, KEYFRAME_REQUEST set after a failed check until a keyframe applies.
    ///
    /// Sans-IO: the game owns the socket and the clock; poll PollTransmit after each call.
    /// </summary>
    public sealed class AckedClientHalf : ISessionHalf<Input, Delivery<Event>>
    {
        /// <summary>The decoder, for its lower-level methods (its counters, its held states).</summary>
        public readonly AckedDecoder<EntityState, Change, Event, Input> Decoder =
            new AckedDecoder<EntityState, Change, Event, Input>(AckedReference.Schema);

        readonly AckWriter<Input> writer;
        readonly Outbox outbox = new Outbox();

        /// <summary>A fresh client; the writer repeats at most <paramref name="keep"/> inputs (1 to 255) until covered.</summary>
        public AckedClientHalf(ulong keep = 16)
        {
            writer = new AckWriter<Input>(keep);
        }

        /// <summary>The server's <c>acked</c> frame arrives; any other name is a SessionError. A peer's bytes never throw: the Delivery says what became of them.</summary>
        public Delivery<Event> HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, "acked");
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
                bytes = AckedReference.Schema.EncodeAck(ack);
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

        /// <summary>The FNV-1a 32 of the shown state (the check's value: DESIGN.md section 3).</summary>
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
    /// the client's <c>ack</c>, judged against the tick of <c>now</c>.
    /// </summary>
    public sealed class AckedServerHalf : ISessionHalf<AckedTick, AckedAckReport>
    {
        /// <summary>The client's view.</summary>
        public readonly Presenter Presenter;

        /// <summary>The encoder, for its lower-level methods.</summary>
        public readonly AckedEncoder<EntityState, Change, Event, Input> Encoder;

        readonly Outbox outbox = new Outbox();

        /// <summary>The half over <paramref name="presenter"/>, its encoder's inputs going to <paramref name="inputs"/>.</summary>
        public AckedServerHalf(Presenter presenter, IInputSink<Input> inputs)
        {
            Presenter = presenter;
            Encoder = new AckedEncoder<EntityState, Change, Event, Input>(AckedReference.Schema, inputs);
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
            outbox.Push(new Transmit("acked", sent.Bytes, sent.Reliable));
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return outbox.Poll();
        }
    }
}
