// The reference protocol's presenter (ACK-18): each client's S_N from the server's world, the
// game policy the acked binding leaves to its user (what a client sees, the near tier's
// TierBoundary, the far poses' rate, a client's own entities in full), as the Rust codec's
// `acked::Presenter` (codec/src/acked/presenter.rs). Everything mechanical (diff, apply, the
// check's bytes, the frames) is the binding `ackwire gen --lang cs` writes for `state Reference`
// (Reference.cs, beside Protocol.cs): the server half runs this presenter over its schema,
// `AckedHalves.Server(Reference.Schema, presenter, inputs)` (or PackedReference.Schema, kind 12).
//
// This file uses the generated codec (namespace Ackwire.Protocol); conformance/testees/cs/build.sh
// copies this folder beside it (gen/reference/).

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Reference
{
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
        /// orientation away: the binding's Diff refuses a record that drops one).
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
        /// <summary>The near tier, with hysteresis (SRV-8).</summary>
        public TierBoundary Tier = new TierBoundary(12, 14);
        /// <summary>A far entity's pose is due on the ticks where (tick + eid) % FarEvery == 0.</summary>
        public uint FarEvery = 6;
    }

    /// <summary>
    /// Computes each tick's S_N for one client of the reference schema, as the Rust codec's
    /// <c>Presenter</c>. ACK-17, ACK-18: per client, the server computes what an ordered client
    /// would hold after frame N (every entity's record, whether its pose came full, the tier it
    /// was sent at and the tick its pose was measured at), as the ordered encoder does: what
    /// changed, a far entity's pose only when it is due or its rest changed, the client's own
    /// entities' pose in full.
    ///
    /// Per entity of the world: new (or a new life), whole, its pose measured now; near (the
    /// client's own, or within the tier boundary, judged with hysteresis against the tier it was
    /// sent at last) or outside the quantized box (PoseReach), the pose comes full whenever it
    /// differs; far, the pose comes quantized (1/512 m, 256 yaw steps) only when it is due, its
    /// rest or its tier changed, and it differs; any pose is measured again when PoseRefresh old.
    /// The orientation, when the world gives one, is quantized as smallest three
    /// (SmallestThree.FromXyzw at OrientBits) on every tick, whatever the pose's tier and rate
    /// (the diff sends it only when it differs), and kept for the entity's life.
    /// </summary>
    public sealed class Presenter : IAckedPresenter<IDictionary<int, WorldEntity>, EntityState>
    {
        /// <summary>
        /// The bits of each component of the orientation's smallest three (acked.wire's
        /// <c>Orientation</c>: <c>quat(9)</c>).
        /// </summary>
        public const int OrientBits = 9;

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

        /// <summary>Rounds halves away from zero, as the other languages' presenters do (exactly, without adding 0.5).</summary>
        static double RoundHalfAway(double x)
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

        /// <summary>Metres (an f32) as whole steps of 1/512 m (acked.wire, EntityState).</summary>
        static int Steps(float v)
        {
            if (float.IsNaN(v) || float.IsInfinity(v))
            {
                return 0;
            }
            double s = RoundHalfAway((double)v * 512);
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
            return (int)((long)RoundHalfAway(r / 360 * 65536) & 0xffff);
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
                // CHECK-5: outside the box a pose step reaches, the pose comes full.
                bool box = Math.Abs((long)x) <= ReferenceSchema.PoseReach && Math.Abs((long)y) <= ReferenceSchema.PoseReach
                    && Math.Abs((long)z) <= ReferenceSchema.PoseReach;
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
                    SmallestThree s3 = SmallestThree.FromXyzw(q.X, q.Y, q.Z, q.W, OrientBits);
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

}
