// Datagram v2 (`docs/spec/datagram.md`), both halves, as the Rust codec's `datagram` module and the
// TypeScript and C++ ports: entity updates that may be lost, duplicated or reordered, beside a
// reliable, ordered stream of spawns, despawns and full frames. An IDatagramSchema binds the
// machines to a protocol's frames.
//
// Each datagram is self-contained: an update holds the entity's absolute quantized position, so
// losing a datagram only delays its content; the client acknowledges what it applies and the server
// repeats whatever changed since an entity's last acknowledged state until covered (DG-14, DG-22).
//
// - DatagramBuilder and DatagramSplit.SplitTick: one tick's datagrams under a size limit, the
//   header counted at its longest;
// - Subscription: the server's half of one subscription;
// - ReplicaTable: the client's, with spawn tags, the last datagram applied per entity, whole
//   ticks and the input ack, and the limits of ReplicaLimits;
// - DatagramServer and DatagramClient: the session halves.
//
// Choices the specification makes, made as the Rust machines make them: the client acks a datagram
// when it applies it (when its tick, or a later one, is whole), not while it only holds it; a tick
// that sends a full frame sends no datagram.
//
// Every integer of the wire (ids, ticks, frame numbers) is a ulong, positions are longs; sums of
// wire values are checked. Sans-IO: ticks are arguments, frames are values.

using System;
using System.Collections.Generic;
using System.Globalization;

namespace Ackwire.Runtime.Sessions
{
    /// <summary>One component of an entity, or its removal (<c>Data</c> null).</summary>
    public sealed class ComponentChange
    {
        /// <summary>The component's type (u8).</summary>
        public byte Type;

        /// <summary>Its bytes, or null when removed.</summary>
        public byte[] Data;
    }

    /// <summary>One entity's update in a datagram.</summary>
    public sealed class UpdateFrame
    {
        /// <summary>The entity.</summary>
        public ulong Id;

        /// <summary>The low 16 bits of the spawn tick.</summary>
        public ushort SpawnTag;

        /// <summary>Which parts follow (the schema's X, Y, Z and COMPONENTS bits).</summary>
        public byte Mask;

        /// <summary>Absolute x in steps, when sent.</summary>
        public long? X;

        /// <summary>Absolute y in steps, when sent.</summary>
        public long? Y;

        /// <summary>Absolute z in steps, when sent.</summary>
        public long? Z;

        /// <summary>Component changes, or null when none are sent.</summary>
        public ComponentChange[] Components;
    }

    /// <summary>A datagram's header fields.</summary>
    public struct DatagramHeader
    {
        /// <summary>The datagram's number, per subscription, from 1.</summary>
        public ulong Frame;

        /// <summary>The server tick the updates describe.</summary>
        public ulong Tick;

        /// <summary>The highest client_seq the shard has processed.</summary>
        public ulong InputAck;

        /// <summary>The tick of the last stream frame sent by this tick.</summary>
        public ulong StreamTick;

        /// <summary>Metres per step.</summary>
        public float Precision;

        /// <summary>How many datagrams this tick was sent in.</summary>
        public uint Parts;
    }

    /// <summary>A datagram (the reference protocol's version 2 frame).</summary>
    public sealed class DatagramFrame
    {
        /// <summary>The header.</summary>
        public DatagramHeader Header;

        /// <summary>Updates, ids ascending.</summary>
        public UpdateFrame[] Updates;
    }

    /// <summary>A stream spawn frame.</summary>
    public sealed class SpawnFrame
    {
        /// <summary>The stream frame's tick.</summary>
        public ulong Tick;

        /// <summary>The entity.</summary>
        public ulong Id;

        /// <summary>Metres per step.</summary>
        public float Precision;

        /// <summary>Absolute x in steps.</summary>
        public long X;

        /// <summary>Absolute y in steps.</summary>
        public long Y;

        /// <summary>Absolute z in steps.</summary>
        public long Z;

        /// <summary>Its components.</summary>
        public ComponentChange[] Components;
    }

    /// <summary>A stream despawn frame.</summary>
    public sealed class DespawnFrame
    {
        /// <summary>The stream frame's tick.</summary>
        public ulong Tick;

        /// <summary>The entity.</summary>
        public ulong Id;
    }

    /// <summary>One entity of a full frame.</summary>
    public sealed class FullEntityFrame
    {
        /// <summary>The entity.</summary>
        public ulong Id;

        /// <summary>Absolute x in steps.</summary>
        public long X;

        /// <summary>Absolute y in steps.</summary>
        public long Y;

        /// <summary>Absolute z in steps.</summary>
        public long Z;

        /// <summary>Its components.</summary>
        public ComponentChange[] Components;
    }

    /// <summary>A stream full frame: the whole subscription.</summary>
    public sealed class FullFrameFrame
    {
        /// <summary>The stream frame's tick.</summary>
        public ulong Tick;

        /// <summary>Metres per step.</summary>
        public float Precision;

        /// <summary>The entities, ids ascending.</summary>
        public FullEntityFrame[] Entities;
    }

    /// <summary>The client's acknowledgement of one datagram.</summary>
    public sealed class DatagramAckFrame
    {
        /// <summary>The datagram's number.</summary>
        public ulong Frame;

        /// <summary>The tick of the last stream frame applied.</summary>
        public ulong StreamTick;
    }

    /// <summary>Which stream frame a <see cref="StreamFrame"/> holds.</summary>
    public enum StreamKind
    {
        /// <summary>A spawn.</summary>
        Spawn,
        /// <summary>A despawn.</summary>
        Despawn,
        /// <summary>A full frame.</summary>
        FullFrame,
    }

    /// <summary>One frame of the reliable stream: the field its <see cref="Kind"/> names is set.</summary>
    public sealed class StreamFrame
    {
        /// <summary>Which frame it is.</summary>
        public StreamKind Kind;

        /// <summary>The spawn, for <see cref="StreamKind.Spawn"/>.</summary>
        public SpawnFrame Spawn;

        /// <summary>The despawn, for <see cref="StreamKind.Despawn"/>.</summary>
        public DespawnFrame Despawn;

        /// <summary>The full frame, for <see cref="StreamKind.FullFrame"/>.</summary>
        public FullFrameFrame FullFrame;

        /// <summary>The stream frame's tick.</summary>
        public ulong Tick
        {
            get
            {
                switch (Kind)
                {
                    case StreamKind.Spawn: return Spawn.Tick;
                    case StreamKind.Despawn: return Despawn.Tick;
                    default: return FullFrame.Tick;
                }
            }
        }
    }

    /// <summary>What binds the datagram halves to a protocol: frame names, mask bits, codecs and lengths.
    /// A decoder throws the codec's DecodeError, an encoder its EncodeError.</summary>
    public interface IDatagramSchema
    {
        /// <summary>The datagram frame's name in the spec.</summary>
        string DatagramName { get; }
        /// <summary>The spawn frame's name.</summary>
        string SpawnName { get; }
        /// <summary>The despawn frame's name.</summary>
        string DespawnName { get; }
        /// <summary>The full frame's name.</summary>
        string FullFrameName { get; }
        /// <summary>The client's ack's name.</summary>
        string AckName { get; }
        /// <summary>The update mask's x bit.</summary>
        byte MaskX { get; }
        /// <summary>The update mask's y bit.</summary>
        byte MaskY { get; }
        /// <summary>The update mask's z bit.</summary>
        byte MaskZ { get; }
        /// <summary>The update mask's components bit.</summary>
        byte MaskComponents { get; }
        /// <summary>A datagram's header at its longest, in bytes (MAX_HEADER_LEN).</summary>
        int MaxHeaderLen { get; }
        /// <summary>Bytes <paramref name="update"/> takes in a datagram's ascending list after the
        /// id <paramref name="prev"/> (when <paramref name="hasPrev"/>; else first).</summary>
        int UpdateLen(UpdateFrame update, bool hasPrev, ulong prev);
        /// <summary>Throws the codec's EncodeError when <paramref name="update"/> does not encode.</summary>
        void CheckUpdate(UpdateFrame update);
        /// <summary>Decodes a datagram.</summary>
        DatagramFrame DecodeDatagram(byte[] bytes);
        /// <summary>Encodes a datagram.</summary>
        byte[] EncodeDatagram(DatagramFrame d);
        /// <summary>Decodes a spawn.</summary>
        SpawnFrame DecodeSpawn(byte[] bytes);
        /// <summary>Encodes a spawn.</summary>
        byte[] EncodeSpawn(SpawnFrame f);
        /// <summary>Decodes a despawn.</summary>
        DespawnFrame DecodeDespawn(byte[] bytes);
        /// <summary>Encodes a despawn.</summary>
        byte[] EncodeDespawn(DespawnFrame f);
        /// <summary>Decodes a full frame.</summary>
        FullFrameFrame DecodeFullFrame(byte[] bytes);
        /// <summary>Encodes a full frame.</summary>
        byte[] EncodeFullFrame(FullFrameFrame f);
        /// <summary>Decodes an ack.</summary>
        DatagramAckFrame DecodeAck(byte[] bytes);
        /// <summary>Encodes an ack.</summary>
        byte[] EncodeAck(DatagramAckFrame f);
    }

    /// <summary>The arithmetic of datagram v2's wire values (DG-5, DG-8).</summary>
    public static class DatagramMath
    {
        /// <summary>The part of a spawn tick an update carries (DG-8: its low 16 bits).</summary>
        public static ushort SpawnTag(ulong spawnTick)
        {
            return unchecked((ushort)spawnTick);
        }

        /// <summary>
        /// An axis value on the wire: round(coordinate / precision), halves away from zero. DG-5:
        /// an axis value is round(coordinate / precision), and a non-finite coordinate quantizes to
        /// 0. A quotient that is not finite also gives 0, one beyond i64 saturates.
        /// </summary>
        public static long Quantize(double coordinate, float precision)
        {
            if (double.IsNaN(coordinate) || double.IsInfinity(coordinate))
            {
                return 0;
            }
            double q = coordinate / (double)precision;
            if (double.IsNaN(q) || double.IsInfinity(q))
            {
                return 0;
            }
            double r = Math.Round(q, MidpointRounding.AwayFromZero);
            if (r >= 9223372036854775808.0)
            {
                return long.MaxValue;
            }
            if (r < -9223372036854775808.0)
            {
                return long.MinValue;
            }
            return (long)r;
        }
    }

    /// <summary>Builds one datagram: updates in ascending id order under a size limit, the header
    /// counted at the schema's MaxHeaderLen.</summary>
    public sealed class DatagramBuilder
    {
        readonly IDatagramSchema schema;
        DatagramHeader header;
        readonly List<UpdateFrame> updates = new List<UpdateFrame>();
        bool hasPrev;
        ulong prev;
        long length;
        long limit;

        /// <summary>An empty datagram of <paramref name="header"/>, at most <paramref name="limit"/> bytes.</summary>
        public DatagramBuilder(IDatagramSchema schema, DatagramHeader header, long limit)
        {
            this.schema = schema;
            this.header = header;
            length = schema.MaxHeaderLen;
            this.limit = limit;
        }

        /// <summary>Bytes counted so far (the header at its longest).</summary>
        public long Length { get { return length; } }

        /// <summary>Whether no update is in.</summary>
        public bool IsEmpty { get { return updates.Count == 0; } }

        /// <summary>Adds <paramref name="update"/> when it fits: false (nothing added) when it does
        /// not. Its id must ascend and it must encode (else a SessionError <c>world</c>).</summary>
        public bool TryPush(UpdateFrame update)
        {
            if (hasPrev && update.Id <= prev)
            {
                throw DatagramErrors.Build("update id " + update.Id + " does not ascend (previous " + prev + ")", null);
            }
            try
            {
                schema.CheckUpdate(update);
            }
            catch (EncodeError e)
            {
                throw DatagramErrors.Build("the update does not encode: " + e.Message, e);
            }
            int needed = schema.UpdateLen(update, hasPrev, prev);
            long left = Math.Max(0, limit - length);
            if (needed > left)
            {
                return false;
            }
            length += needed;
            hasPrev = true;
            prev = update.Id;
            updates.Add(update);
            return true;
        }

        /// <summary><see cref="TryPush"/> with no size limit: an update too large for any datagram.</summary>
        public void PushUnlimited(UpdateFrame update)
        {
            long saved = limit;
            limit = long.MaxValue;
            try
            {
                TryPush(update);
            }
            finally
            {
                limit = saved;
            }
        }

        /// <summary>Sets the tick's part count.</summary>
        public void SetParts(uint parts)
        {
            header.Parts = parts;
        }

        /// <summary>The datagram.</summary>
        public DatagramFrame Finish()
        {
            return new DatagramFrame { Header = header, Updates = updates.ToArray() };
        }
    }

    static class DatagramErrors
    {
        /// <summary>Why a tick's datagrams did not build (the Rust BuildError), as a SessionError world.</summary>
        public static SessionError Build(string message, Exception cause)
        {
            return cause == null ? new SessionError("world", message) : new SessionError("world", message, cause);
        }
    }

    /// <summary>Splitting a tick's updates into datagrams.</summary>
    public static class DatagramSplit
    {
        static DatagramHeader Numbered(DatagramHeader first, int part)
        {
            ulong frame = first.Frame + (ulong)part;
            if (frame < first.Frame)
            {
                throw DatagramErrors.Build("the tick's datagrams run out of numbers: first frame " + first.Frame + ", part " + part, null);
            }
            DatagramHeader h = first;
            h.Frame = frame;
            return h;
        }

        /// <summary>
        /// Splits one tick's updates (ids ascending) into datagrams of at most <paramref
        /// name="limit"/> bytes, numbered from the header's frame on, each naming the count; an
        /// update too large alone goes alone. DG-11: a tick without a full frame sends one datagram
        /// or more.
        /// </summary>
        public static List<DatagramFrame> SplitTick(IDatagramSchema schema, DatagramHeader header, List<UpdateFrame> updates, long limit)
        {
            List<DatagramBuilder> parts = new List<DatagramBuilder>();
            DatagramBuilder current = new DatagramBuilder(schema, header, limit);
            bool hasLast = false;
            ulong lastId = 0;
            foreach (UpdateFrame update in updates)
            {
                if (hasLast && update.Id <= lastId)
                {
                    throw DatagramErrors.Build("update id " + update.Id + " does not ascend (previous " + lastId + ")", null);
                }
                hasLast = true;
                lastId = update.Id;
                if (current.TryPush(update))
                {
                    continue;
                }
                DatagramHeader next = Numbered(header, parts.Count + 1);
                if (current.IsEmpty)
                {
                    current.PushUnlimited(update);
                    parts.Add(current);
                    current = new DatagramBuilder(schema, next, limit);
                }
                else
                {
                    parts.Add(current);
                    current = new DatagramBuilder(schema, next, limit);
                    if (!current.TryPush(update))
                    {
                        current.PushUnlimited(update);
                        DatagramHeader after = Numbered(header, parts.Count + 1);
                        parts.Add(current);
                        current = new DatagramBuilder(schema, after, limit);
                    }
                }
            }
            if (!current.IsEmpty || parts.Count == 0)
            {
                parts.Add(current);
            }
            List<DatagramFrame> out_ = new List<DatagramFrame>(parts.Count);
            foreach (DatagramBuilder b in parts)
            {
                b.SetParts((uint)parts.Count);
                out_.Add(b.Finish());
            }
            return out_;
        }
    }

    /// <summary>How a subscription encodes.</summary>
    public struct SubscriptionConfig
    {
        /// <summary>Metres per quantization step (an f32).</summary>
        public float Precision;

        /// <summary>Bytes a datagram takes at most (header counted at its longest).</summary>
        public long MaxDatagram;

        /// <summary>Datagrams remembered for their ack; an ack of an older one is ignored.</summary>
        public ulong SentWindow;

        /// <summary>The default: 0.01 m, 1,200 bytes, 1,024 datagrams.</summary>
        public static SubscriptionConfig Default
        {
            get { return new SubscriptionConfig { Precision = 0.01f, MaxDatagram = 1200, SentWindow = 1024 }; }
        }
    }

    /// <summary>Which thing the world does in a <see cref="WorldOp"/>.</summary>
    public enum WorldOpKind
    {
        /// <summary>A new entity at a position with components.</summary>
        Spawn,
        /// <summary>An entity goes.</summary>
        Despawn,
        /// <summary>An entity moves.</summary>
        Move,
        /// <summary>A component is set.</summary>
        Set,
        /// <summary>A component is removed.</summary>
        Remove,
        /// <summary>The tick sends a full frame.</summary>
        FullFrame,
    }

    /// <summary>One thing the world does during a tick; the fields its kind uses are set.</summary>
    public sealed class WorldOp
    {
        /// <summary>What it is.</summary>
        public WorldOpKind Kind;
        /// <summary>The entity (all but FullFrame).</summary>
        public ulong Id;
        /// <summary>The x position in metres (Spawn, Move).</summary>
        public double X;
        /// <summary>The y position in metres (Spawn, Move).</summary>
        public double Y;
        /// <summary>The z position in metres (Spawn, Move).</summary>
        public double Z;
        /// <summary>The component type (Set, Remove).</summary>
        public byte Type;
        /// <summary>The component bytes (Set).</summary>
        public byte[] Data;
        /// <summary>The components by type (Spawn), in the order given.</summary>
        public List<KeyValuePair<byte, byte[]>> Components;
    }

    /// <summary>What a tick sends: stream frames (reliable, in order) and datagrams (unreliable).</summary>
    public sealed class TickOutput
    {
        /// <summary>Stream frames, in order.</summary>
        public List<StreamFrame> Stream = new List<StreamFrame>();
        /// <summary>The tick's datagrams.</summary>
        public List<DatagramFrame> Datagrams = new List<DatagramFrame>();
    }

    /// <summary>What an ack did.</summary>
    public struct AckSummary
    {
        /// <summary>The ack named a datagram the window remembers.</summary>
        public bool Known;
        /// <summary>Entities it covered.</summary>
        public int Covered;
        /// <summary>Entities not covered: respawned since, or spawned after the ack's stream tick.</summary>
        public int NotCovered;
    }

    /// <summary>
    /// The server's side of one subscription (DG-11 to DG-16): the world's ops tick by tick in,
    /// stream frames and datagrams out; an update carries every axis and component changed since
    /// the entity's last acknowledged state (DG-14). At most <c>SentWindow</c> datagrams are
    /// remembered; the world is the server's own, so the entities it tracks are its size.
    /// </summary>
    public sealed class Subscription
    {
        sealed class Tracked
        {
            public ulong SpawnTick;
            public long[] Position = new long[3];
            public ulong[] PositionChanged = new ulong[3];
            // Per type: the bytes (null: removed, kept until an ack covers it) and the carrier.
            public SortedDictionary<byte, KeyValuePair<byte[], ulong>> Components = new SortedDictionary<byte, KeyValuePair<byte[], ulong>>();
            public ulong AckedFrame;
        }

        readonly IDatagramSchema schema;
        readonly SubscriptionConfig config;
        readonly SortedDictionary<ulong, Tracked> entities = new SortedDictionary<ulong, Tracked>();
        ulong nextFrame = 1;
        ulong streamTick;
        bool hasLastTick;
        ulong lastTick;
        readonly SortedDictionary<ulong, List<KeyValuePair<ulong, ulong>>> sent = new SortedDictionary<ulong, List<KeyValuePair<ulong, ulong>>>();

        /// <summary>A subscription to an empty world.</summary>
        public Subscription(IDatagramSchema schema, SubscriptionConfig config)
        {
            this.schema = schema;
            this.config = config;
        }

        /// <summary>The tick of the last stream frame sent.</summary>
        public ulong StreamTick { get { return streamTick; } }

        /// <summary>Datagrams remembered for their acks.</summary>
        public int Remembered { get { return sent.Count; } }

        static ComponentChange[] WireComponents(SortedDictionary<byte, KeyValuePair<byte[], ulong>> c)
        {
            List<ComponentChange> out_ = new List<ComponentChange>(c.Count);
            foreach (KeyValuePair<byte, KeyValuePair<byte[], ulong>> kv in c)
            {
                if (kv.Value.Key != null)
                {
                    out_.Add(new ComponentChange { Type = kv.Key, Data = kv.Value.Key });
                }
            }
            return out_.ToArray();
        }

        static bool SameBytes(byte[] a, byte[] b)
        {
            if (a.Length != b.Length)
            {
                return false;
            }
            for (int i = 0; i < a.Length; i++)
            {
                if (a[i] != b[i])
                {
                    return false;
                }
            }
            return true;
        }

        Tracked Get(ulong id)
        {
            Tracked e;
            if (!entities.TryGetValue(id, out e))
            {
                throw new SessionError("world", "entity " + id + " is not spawned");
            }
            return e;
        }

        /// <summary>
        /// One tick: applies <paramref name="ops"/> in order, then sends the tick's stream frames
        /// and datagrams (or its full frame). An op refused (SessionError <c>world</c>) leaves the
        /// ops before it applied and the tick unsent.
        /// </summary>
        public TickOutput Tick(ulong tick, ulong inputAck, List<WorldOp> ops)
        {
            if (hasLastTick && tick <= lastTick)
            {
                throw new SessionError("world", "tick " + tick + " is not after the last tick " + lastTick);
            }
            TickOutput out_ = new TickOutput();
            bool full = false;
            ulong carrier = nextFrame;
            float precision = config.Precision;
            foreach (WorldOp op in ops)
            {
                switch (op.Kind)
                {
                    case WorldOpKind.Spawn:
                        {
                            if (entities.ContainsKey(op.Id))
                            {
                                throw new SessionError("world", "entity " + op.Id + " is already spawned");
                            }
                            Tracked e = new Tracked
                            {
                                SpawnTick = tick,
                                // The spawn frame carries its state; nothing built before it counts.
                                AckedFrame = carrier - 1,
                            };
                            e.Position[0] = DatagramMath.Quantize(op.X, precision);
                            e.Position[1] = DatagramMath.Quantize(op.Y, precision);
                            e.Position[2] = DatagramMath.Quantize(op.Z, precision);
                            if (op.Components != null)
                            {
                                foreach (KeyValuePair<byte, byte[]> c in op.Components)
                                {
                                    e.Components[c.Key] = new KeyValuePair<byte[], ulong>(c.Value, 0);
                                }
                            }
                            out_.Stream.Add(new StreamFrame
                            {
                                Kind = StreamKind.Spawn,
                                Spawn = new SpawnFrame
                                {
                                    Tick = tick,
                                    Id = op.Id,
                                    Precision = precision,
                                    X = e.Position[0],
                                    Y = e.Position[1],
                                    Z = e.Position[2],
                                    Components = WireComponents(e.Components),
                                },
                            });
                            entities[op.Id] = e;
                            break;
                        }
                    case WorldOpKind.Despawn:
                        {
                            Tracked e = Get(op.Id);
                            entities.Remove(op.Id);
                            if (e.SpawnTick == tick)
                            {
                                // Spawned and despawned within this tick: the client never sees it.
                                ulong id = op.Id;
                                out_.Stream.RemoveAll(f => f.Kind == StreamKind.Spawn && f.Spawn.Id == id);
                            }
                            else
                            {
                                out_.Stream.Add(new StreamFrame
                                {
                                    Kind = StreamKind.Despawn,
                                    Despawn = new DespawnFrame { Tick = tick, Id = op.Id },
                                });
                            }
                            break;
                        }
                    case WorldOpKind.Move:
                        {
                            long qx = DatagramMath.Quantize(op.X, precision);
                            long qy = DatagramMath.Quantize(op.Y, precision);
                            long qz = DatagramMath.Quantize(op.Z, precision);
                            Tracked e = Get(op.Id);
                            long[] q = { qx, qy, qz };
                            for (int axis = 0; axis < 3; axis++)
                            {
                                if (e.Position[axis] != q[axis])
                                {
                                    e.Position[axis] = q[axis];
                                    e.PositionChanged[axis] = carrier;
                                }
                            }
                            break;
                        }
                    case WorldOpKind.Set:
                        {
                            Tracked e = Get(op.Id);
                            KeyValuePair<byte[], ulong> held;
                            bool same = e.Components.TryGetValue(op.Type, out held) && held.Key != null && SameBytes(held.Key, op.Data);
                            if (!same)
                            {
                                e.Components[op.Type] = new KeyValuePair<byte[], ulong>(op.Data, carrier);
                            }
                            break;
                        }
                    case WorldOpKind.Remove:
                        {
                            Tracked e = Get(op.Id);
                            KeyValuePair<byte[], ulong> held;
                            if (e.Components.TryGetValue(op.Type, out held) && held.Key != null)
                            {
                                e.Components[op.Type] = new KeyValuePair<byte[], ulong>(null, carrier);
                            }
                            break;
                        }
                    default:
                        full = true;
                        break;
                }
            }
            hasLastTick = true;
            lastTick = tick;
            if (out_.Stream.Count > 0)
            {
                streamTick = tick;
            }
            if (full)
            {
                // A full frame replaces everything the client holds: the tick's other stream
                // frames are in it, and no datagram is sent this tick.
                List<FullEntityFrame> list = new List<FullEntityFrame>(entities.Count);
                foreach (KeyValuePair<ulong, Tracked> kv in entities)
                {
                    Tracked e = kv.Value;
                    SortedDictionary<byte, KeyValuePair<byte[], ulong>> kept = new SortedDictionary<byte, KeyValuePair<byte[], ulong>>();
                    foreach (KeyValuePair<byte, KeyValuePair<byte[], ulong>> c in e.Components)
                    {
                        if (c.Value.Key != null)
                        {
                            kept[c.Key] = new KeyValuePair<byte[], ulong>(c.Value.Key, 0);
                        }
                    }
                    e.Components = kept;
                    e.PositionChanged = new ulong[3];
                    e.SpawnTick = tick;
                    e.AckedFrame = nextFrame - 1;
                    list.Add(new FullEntityFrame
                    {
                        Id = kv.Key,
                        X = e.Position[0],
                        Y = e.Position[1],
                        Z = e.Position[2],
                        Components = WireComponents(e.Components),
                    });
                }
                out_.Stream.Clear();
                out_.Stream.Add(new StreamFrame
                {
                    Kind = StreamKind.FullFrame,
                    FullFrame = new FullFrameFrame { Tick = tick, Precision = precision, Entities = list.ToArray() },
                });
                streamTick = tick;
                return out_;
            }
            List<UpdateFrame> updates = new List<UpdateFrame>();
            foreach (KeyValuePair<ulong, Tracked> kv in entities)
            {
                Tracked e = kv.Value;
                // DG-14: whatever changed since the entity's last acknowledged state is sent again
                // until an acknowledgement covers it.
                long? x = e.PositionChanged[0] > e.AckedFrame ? e.Position[0] : (long?)null;
                long? y = e.PositionChanged[1] > e.AckedFrame ? e.Position[1] : (long?)null;
                long? z = e.PositionChanged[2] > e.AckedFrame ? e.Position[2] : (long?)null;
                List<ComponentChange> comps = null;
                foreach (KeyValuePair<byte, KeyValuePair<byte[], ulong>> c in e.Components)
                {
                    if (c.Value.Value > e.AckedFrame)
                    {
                        if (comps == null)
                        {
                            comps = new List<ComponentChange>();
                        }
                        comps.Add(new ComponentChange { Type = c.Key, Data = c.Value.Key });
                    }
                }
                // DG-4: mask bit 1 x, 2 y, 4 z, 8 components.
                int mask = (x.HasValue ? schema.MaskX : 0) | (y.HasValue ? schema.MaskY : 0)
                    | (z.HasValue ? schema.MaskZ : 0) | (comps != null ? schema.MaskComponents : 0);
                if (mask == 0)
                {
                    continue;
                }
                updates.Add(new UpdateFrame
                {
                    Id = kv.Key,
                    SpawnTag = DatagramMath.SpawnTag(e.SpawnTick),
                    Mask = (byte)mask,
                    X = x,
                    Y = y,
                    Z = z,
                    Components = comps == null ? null : comps.ToArray(),
                });
            }
            DatagramHeader header = new DatagramHeader
            {
                Frame = nextFrame,
                Tick = tick,
                InputAck = inputAck,
                StreamTick = streamTick,
                Precision = precision,
                Parts = 1,
            };
            List<DatagramFrame> datagrams = DatagramSplit.SplitTick(schema, header, updates, config.MaxDatagram);
            foreach (DatagramFrame d in datagrams)
            {
                List<KeyValuePair<ulong, ulong>> carried = new List<KeyValuePair<ulong, ulong>>(d.Updates.Length);
                foreach (UpdateFrame u in d.Updates)
                {
                    Tracked e;
                    if (entities.TryGetValue(u.Id, out e))
                    {
                        carried.Add(new KeyValuePair<ulong, ulong>(u.Id, e.SpawnTick));
                    }
                }
                sent[d.Header.Frame] = carried;
            }
            // SplitTick refused any numbering past u64, so this sum fits.
            nextFrame += (ulong)datagrams.Count;
            ulong oldest = nextFrame > config.SentWindow ? nextFrame - config.SentWindow : 0;
            while (sent.Count > 0)
            {
                ulong first = FirstKey(sent);
                if (first >= oldest)
                {
                    break;
                }
                sent.Remove(first);
            }
            out_.Datagrams = datagrams;
            return out_;
        }

        static ulong FirstKey<T>(SortedDictionary<ulong, T> d)
        {
            foreach (KeyValuePair<ulong, T> kv in d)
            {
                return kv.Key;
            }
            return 0;
        }

        /// <summary>Folds the client's ack of one datagram.</summary>
        public AckSummary OnAck(DatagramAckFrame ack)
        {
            AckSummary s = new AckSummary();
            // An ack naming a stream frame never sent is not from our client.
            if (ack.StreamTick > streamTick)
            {
                return s;
            }
            List<KeyValuePair<ulong, ulong>> carried;
            if (!sent.TryGetValue(ack.Frame, out carried))
            {
                return s;
            }
            s.Known = true;
            foreach (KeyValuePair<ulong, ulong> c in carried)
            {
                Tracked e;
                // DG-15: an acknowledgement covers an entity only when its stream tick is at or
                // after the entity's spawn. The update must also be for this occupant of the id,
                // not one despawned since.
                if (!entities.TryGetValue(c.Key, out e) || e.SpawnTick != c.Value || ack.StreamTick < e.SpawnTick)
                {
                    s.NotCovered += 1;
                    continue;
                }
                s.Covered += 1;
                // A late ack never moves the acknowledged state back.
                if (ack.Frame > e.AckedFrame)
                {
                    e.AckedFrame = ack.Frame;
                }
                ulong acked = e.AckedFrame;
                List<byte> gone = null;
                foreach (KeyValuePair<byte, KeyValuePair<byte[], ulong>> kv in e.Components)
                {
                    if (kv.Value.Key == null && kv.Value.Value <= acked)
                    {
                        if (gone == null)
                        {
                            gone = new List<byte>();
                        }
                        gone.Add(kv.Key);
                    }
                }
                if (gone != null)
                {
                    foreach (byte t in gone)
                    {
                        e.Components.Remove(t);
                    }
                }
            }
            return s;
        }
    }

    /// <summary>One entity as the client holds it.</summary>
    public sealed class Replica
    {
        /// <summary>The tick of the stream frame that spawned it.</summary>
        public ulong SpawnTick;
        /// <summary>Absolute position in steps.</summary>
        public long[] Position = new long[3];
        /// <summary>Components by type.</summary>
        public SortedDictionary<byte, byte[]> Components = new SortedDictionary<byte, byte[]>();
        /// <summary>The number of the last datagram applied to it; 0 before any.</summary>
        public ulong LastDatagram;
    }

    /// <summary>
    /// Bounds on what a ReplicaTable holds, whatever the server sends (GEN-5, docs/limits.md), as
    /// the Rust <c>ReplicaLimits</c>: <c>MaxEntities</c> (default 65,536; a spawn beyond is
    /// refused), <c>MaxHeld</c> datagrams held for ticks not yet whole (default 256; beyond, the
    /// oldest tick held is given up, never acked, so the server sends it again),
    /// <c>MaxComponentBytes</c> (default 16 MiB, each component counted at its length plus
    /// ComponentOverhead; past it a spawn is refused and an update skipped whole, its datagram not
    /// acked) and <c>MaxHeldBytes</c> (default 8 MiB of held datagrams, each counted by
    /// <c>HeldCost</c>; past it, as past <c>MaxHeld</c>, the oldest tick held is given up).
    /// </summary>
    public struct ReplicaLimits
    {
        /// <summary>What each component costs beyond its bytes in MaxComponentBytes.</summary>
        public const long ComponentOverhead = 64;
        /// <summary>What a held datagram costs in MaxHeldBytes beyond its updates.</summary>
        public const long HeldDatagramOverhead = 256;
        /// <summary>What each update of a held datagram costs in MaxHeldBytes beyond its components.</summary>
        public const long HeldUpdateOverhead = 96;
        /// <summary>Entities held at most.</summary>
        public int MaxEntities;
        /// <summary>Datagrams held for ticks that are not whole yet.</summary>
        public int MaxHeld;
        /// <summary>Component bytes held at most, over every entity.</summary>
        public long MaxComponentBytes;
        /// <summary>Bytes of datagrams held for ticks not yet whole, as HeldCost counts them.</summary>
        public long MaxHeldBytes;

        /// <summary>The defaults: 65,536 entities, 256 datagrams, 16 MiB of components, 8 MiB of held datagrams.</summary>
        public static ReplicaLimits Default
        {
            get { return new ReplicaLimits { MaxEntities = 1 << 16, MaxHeld = 256, MaxComponentBytes = 16L << 20, MaxHeldBytes = 8L << 20 }; }
        }

        /// <summary>
        /// What a held datagram costs in MaxHeldBytes, the same in every language:
        /// HeldDatagramOverhead, plus HeldUpdateOverhead an update, plus each component at its
        /// length (0 for a removal) and ComponentOverhead.
        /// </summary>
        public static long HeldCost(DatagramFrame d)
        {
            long sum = HeldDatagramOverhead;
            foreach (UpdateFrame u in d.Updates)
            {
                sum += HeldUpdateOverhead;
                if (u.Components == null)
                {
                    continue;
                }
                foreach (ComponentChange c in u.Components)
                {
                    sum += (c.Data == null ? 0 : c.Data.Length) + ComponentOverhead;
                }
            }
            return sum;
        }
    }

    /// <summary>What one datagram, or one stream frame, did to the table.</summary>
    public struct DatagramSummary
    {
        /// <summary>The datagram is held until its tick is whole.</summary>
        public bool Held;
        /// <summary>Datagrams applied during the call.</summary>
        public int Released;
        /// <summary>Updates applied.</summary>
        public int Applied;
        /// <summary>Updates skipped: their spawn tag is not the entity's.</summary>
        public int SkippedSpawnTag;
        /// <summary>Updates skipped: not newer than the last applied to the entity.</summary>
        public int SkippedStale;
        /// <summary>Updates skipped: no entity has their id.</summary>
        public int SkippedUnknown;
        /// <summary>Held datagrams given up for room.</summary>
        public int GivenUp;
        /// <summary>Stream frames refused, and entities of a full frame refused for the limits.</summary>
        public int Refused;
        /// <summary>Updates skipped whole for the component byte limit.</summary>
        public int SkippedOverBytes;
    }

    /// <summary>
    /// The client's replica table (DG-17 to DG-23). Stream frames go to ApplyStream in stream
    /// order, datagrams to Receive as they arrive; a datagram is acked when its updates have been
    /// applied (or skipped), never while it is only held. Bounded by its ReplicaLimits.
    /// </summary>
    public sealed class ReplicaTable
    {
        sealed class HeldTick
        {
            public uint Parts;
            public ulong StreamTick;
            public SortedDictionary<ulong, DatagramFrame> Datagrams = new SortedDictionary<ulong, DatagramFrame>();
            /// <summary>What Datagrams cost, as MaxHeldBytes counts them.</summary>
            public long Bytes;
        }

        readonly Dictionary<ulong, Replica> entities = new Dictionary<ulong, Replica>();
        ulong streamTick;
        ulong inputAck;
        bool hasWhole;
        ulong wholeTick;
        readonly SortedDictionary<ulong, HeldTick> held = new SortedDictionary<ulong, HeldTick>();
        int heldCount;
        long heldBytes;
        List<DatagramAckFrame> acks = new List<DatagramAckFrame>();
        long componentBytes;
        readonly ReplicaLimits limits;

        /// <summary>An empty table keeping <paramref name="limits"/>.</summary>
        public ReplicaTable(ReplicaLimits limits)
        {
            this.limits = limits;
        }

        /// <summary>The tick of the last stream frame applied.</summary>
        public ulong StreamTick { get { return streamTick; } }

        /// <summary>The input ack of the newest whole tick.</summary>
        public ulong InputAck { get { return inputAck; } }

        /// <summary>The newest tick that was whole, if any.</summary>
        public ulong? WholeTick { get { return hasWhole ? wholeTick : (ulong?)null; } }

        /// <summary>Datagrams held for ticks that are not whole yet.</summary>
        public int HeldDatagrams { get { return heldCount; } }

        /// <summary>What the held datagrams cost, as MaxHeldBytes counts them.</summary>
        public long HeldBytes { get { return heldBytes; } }

        /// <summary>Component bytes held, as MaxComponentBytes counts them.</summary>
        public long ComponentBytes { get { return componentBytes; } }

        /// <summary>How many entities are held.</summary>
        public int Count { get { return entities.Count; } }

        /// <summary>The entity <paramref name="id"/>, or null.</summary>
        public Replica Entity(ulong id)
        {
            Replica r;
            return entities.TryGetValue(id, out r) ? r : null;
        }

        /// <summary>Every id held, ascending.</summary>
        public List<ulong> Ids()
        {
            List<ulong> ids = new List<ulong>(entities.Keys);
            ids.Sort();
            return ids;
        }

        /// <summary>The acks to send, in order; a second call returns nothing new.</summary>
        public List<DatagramAckFrame> TakeAcks()
        {
            List<DatagramAckFrame> a = acks;
            acks = new List<DatagramAckFrame>();
            return a;
        }

        static long ComponentCost(byte[] bytes)
        {
            return bytes.Length + ReplicaLimits.ComponentOverhead;
        }

        static long Cost(SortedDictionary<byte, byte[]> components)
        {
            long sum = 0;
            foreach (byte[] c in components.Values)
            {
                sum += ComponentCost(c);
            }
            return sum;
        }

        static SortedDictionary<byte, byte[]> Whole(ComponentChange[] components)
        {
            SortedDictionary<byte, byte[]> m = new SortedDictionary<byte, byte[]>();
            if (components != null)
            {
                foreach (ComponentChange c in components)
                {
                    if (c.Data != null)
                    {
                        m[c.Type] = c.Data;
                    }
                }
            }
            return m;
        }

        /// <summary>Applies one stream frame, in stream order.</summary>
        public DatagramSummary ApplyStream(StreamFrame f)
        {
            DatagramSummary s = new DatagramSummary();
            ulong tick = f.Tick;
            if (tick < streamTick)
            {
                // The stream is ordered; a frame from before the last one applied is not ours.
                s.Refused += 1;
                return s;
            }
            streamTick = tick;
            switch (f.Kind)
            {
                case StreamKind.Spawn:
                    {
                        SpawnFrame g = f.Spawn;
                        Replica r = new Replica { SpawnTick = g.Tick, Components = Whole(g.Components) };
                        r.Position[0] = g.X;
                        r.Position[1] = g.Y;
                        r.Position[2] = g.Z;
                        if (!Admit(g.Id, r))
                        {
                            s.Refused += 1;
                        }
                        break;
                    }
                case StreamKind.Despawn:
                    {
                        Replica gone;
                        if (entities.TryGetValue(f.Despawn.Id, out gone))
                        {
                            entities.Remove(f.Despawn.Id);
                            componentBytes -= Cost(gone.Components);
                        }
                        break;
                    }
                default:
                    {
                        // DG-17: a full frame replaces everything the client holds, and every
                        // entity in it counts as spawned at its tick.
                        entities.Clear();
                        componentBytes = 0;
                        foreach (FullEntityFrame e in f.FullFrame.Entities)
                        {
                            Replica r = new Replica { SpawnTick = f.FullFrame.Tick, Components = Whole(e.Components) };
                            r.Position[0] = e.X;
                            r.Position[1] = e.Y;
                            r.Position[2] = e.Z;
                            if (!Admit(e.Id, r))
                            {
                                s.Refused += 1;
                            }
                        }
                        break;
                    }
            }
            Release(ref s);
            return s;
        }

        bool Admit(ulong id, Replica replica)
        {
            Replica old;
            bool had = entities.TryGetValue(id, out old);
            if (!had && entities.Count >= limits.MaxEntities)
            {
                return false;
            }
            long bytes = componentBytes - (had ? Cost(old.Components) : 0) + Cost(replica.Components);
            if (bytes > limits.MaxComponentBytes)
            {
                return false;
            }
            componentBytes = bytes;
            entities[id] = replica;
            return true;
        }

        /// <summary>Takes one datagram: applies it when its tick (or a later one) is whole, holds it otherwise.</summary>
        public DatagramSummary Receive(DatagramFrame d)
        {
            DatagramSummary s = new DatagramSummary();
            // DG-21: the client applies a tick's datagrams, and takes its input ack, when the tick
            // or a later one is whole.
            if (hasWhole && d.Header.Tick <= wholeTick && d.Header.StreamTick <= streamTick)
            {
                Apply(d, ref s);
                return s;
            }
            // What holding then releasing would do when nothing else is held and the datagram
            // alone makes its tick whole (one part, its stream frame in), without the holding:
            // the common case of a datagram for a new tick allocates no held tick.
            if (held.Count == 0 && d.Header.Parts <= 1 && d.Header.StreamTick <= streamTick)
            {
                s.Held = true;
                Apply(d, ref s);
                if (!hasWhole || d.Header.Tick > wholeTick)
                {
                    hasWhole = true;
                    wholeTick = d.Header.Tick;
                    inputAck = d.Header.InputAck;
                }
                return s;
            }
            HeldTick h;
            if (!held.TryGetValue(d.Header.Tick, out h))
            {
                h = new HeldTick { Parts = d.Header.Parts };
                held[d.Header.Tick] = h;
            }
            if (d.Header.StreamTick > h.StreamTick)
            {
                h.StreamTick = d.Header.StreamTick;
            }
            if (!h.Datagrams.ContainsKey(d.Header.Frame))
            {
                long bytes = ReplicaLimits.HeldCost(d);
                h.Datagrams[d.Header.Frame] = d;
                h.Bytes += bytes;
                heldBytes += bytes;
                heldCount += 1;
            }
            s.Held = true;
            Release(ref s);
            // Memory stays bounded whatever the server sends: give up the oldest ticks held.
            while ((heldCount > limits.MaxHeld || heldBytes > limits.MaxHeldBytes) && held.Count > 0)
            {
                ulong oldest = 0;
                foreach (ulong t in held.Keys)
                {
                    oldest = t;
                    break;
                }
                HeldTick gone = held[oldest];
                held.Remove(oldest);
                heldCount -= gone.Datagrams.Count;
                heldBytes -= gone.Bytes;
                s.GivenUp += gone.Datagrams.Count;
            }
            return s;
        }

        void Release(ref DatagramSummary s)
        {
            if (held.Count == 0)
            {
                return;
            }
            // DG-21: a tick is whole when the client holds all of its datagrams and the stream
            // frame they name.
            List<ulong> ticks = new List<ulong>(held.Keys);
            bool found = false;
            ulong whole = 0;
            for (int i = ticks.Count - 1; i >= 0; i--)
            {
                ulong t = ticks[i];
                HeldTick h = held[t];
                bool complete = (uint)h.Datagrams.Count >= h.Parts || (hasWhole && t <= wholeTick);
                if (complete && h.StreamTick <= streamTick)
                {
                    whole = t;
                    found = true;
                    break;
                }
            }
            if (!found)
            {
                return;
            }
            bool hasNewest = false;
            ulong newestAck = 0;
            foreach (ulong t in ticks)
            {
                if (t > whole)
                {
                    break;
                }
                HeldTick h = held[t];
                held.Remove(t);
                heldCount -= h.Datagrams.Count;
                heldBytes -= h.Bytes;
                foreach (DatagramFrame d in h.Datagrams.Values)
                {
                    if (t == whole && (!hasNewest || d.Header.InputAck > newestAck))
                    {
                        hasNewest = true;
                        newestAck = d.Header.InputAck;
                    }
                    Apply(d, ref s);
                }
            }
            if (!hasWhole || whole > wholeTick)
            {
                hasWhole = true;
                wholeTick = whole;
                // DG-21: only then does the input ack describe the table.
                if (hasNewest)
                {
                    inputAck = newestAck;
                }
            }
        }

        /// <summary>The table's component bytes once <paramref name="changes"/> apply onto
        /// <paramref name="components"/>; -1 when the count would go below zero.</summary>
        static long CostAfter(long heldBytes, SortedDictionary<byte, byte[]> components, ComponentChange[] changes)
        {
            // The common cases without the map below (an update of axes only, or of one
            // component), so that they allocate nothing.
            if (changes.Length == 0)
            {
                return heldBytes;
            }
            if (changes.Length == 1)
            {
                byte[] was;
                long less = heldBytes - (components.TryGetValue(changes[0].Type, out was) ? ComponentCost(was) : 0);
                return less < 0 ? -1 : less + (changes[0].Data == null ? 0 : ComponentCost(changes[0].Data));
            }
            SortedDictionary<byte, long> after = new SortedDictionary<byte, long>();
            foreach (ComponentChange c in changes)
            {
                after[c.Type] = c.Data == null ? 0 : ComponentCost(c.Data);
            }
            long sum = heldBytes;
            foreach (KeyValuePair<byte, long> kv in after)
            {
                byte[] old;
                sum -= components.TryGetValue(kv.Key, out old) ? ComponentCost(old) : 0;
                if (sum < 0)
                {
                    return -1;
                }
                sum += kv.Value;
            }
            return sum;
        }

        static readonly ComponentChange[] NoChanges = new ComponentChange[0];

        void Apply(DatagramFrame d, ref DatagramSummary s)
        {
            s.Released += 1;
            // An update for an entity spawned at the last stream tick that the table does not hold
            // (yet) means that tick's stream frames may still be coming: the ack then names the
            // tick before, all of whose frames are surely in.
            ushort doubtfulTag = DatagramMath.SpawnTag(streamTick);
            bool doubtful = false;
            bool refused = false;
            foreach (UpdateFrame u in d.Updates)
            {
                Replica e;
                if (!entities.TryGetValue(u.Id, out e))
                {
                    doubtful |= u.SpawnTag == doubtfulTag;
                    s.SkippedUnknown += 1;
                    continue;
                }
                // DG-18: an update applies only to the entity spawned at the tick its tag names.
                if (u.SpawnTag != DatagramMath.SpawnTag(e.SpawnTick))
                {
                    doubtful |= u.SpawnTag == doubtfulTag;
                    s.SkippedSpawnTag += 1;
                    continue;
                }
                // DG-19: an update from a datagram not newer than the last one applied to its
                // entity is skipped.
                if (d.Header.Frame <= e.LastDatagram)
                {
                    s.SkippedStale += 1;
                    continue;
                }
                ComponentChange[] changes = u.Components ?? NoChanges;
                long bytes = CostAfter(componentBytes, e.Components, changes);
                if (bytes < 0 || bytes > limits.MaxComponentBytes)
                {
                    // ReplicaLimits.MaxComponentBytes: refused whole, before any of it applies.
                    s.SkippedOverBytes += 1;
                    refused = true;
                    continue;
                }
                componentBytes = bytes;
                e.LastDatagram = d.Header.Frame;
                if (u.X.HasValue)
                {
                    e.Position[0] = u.X.Value;
                }
                if (u.Y.HasValue)
                {
                    e.Position[1] = u.Y.Value;
                }
                if (u.Z.HasValue)
                {
                    e.Position[2] = u.Z.Value;
                }
                foreach (ComponentChange c in changes)
                {
                    if (c.Data != null)
                    {
                        e.Components[c.Type] = c.Data;
                    }
                    else
                    {
                        e.Components.Remove(c.Type);
                    }
                }
                s.Applied += 1;
            }
            if (refused)
            {
                return;
            }
            // DG-22: the acknowledgement carries the datagram's number and the last stream tick
            // applied.
            ulong st = streamTick;
            acks.Add(new DatagramAckFrame { Frame = d.Header.Frame, StreamTick = doubtful && st > 0 ? st - 1 : st });
        }

        static void PutU64(byte[] b, ref int at, ulong v)
        {
            for (int i = 0; i < 8; i++)
            {
                b[at++] = unchecked((byte)(v >> (8 * i)));
            }
        }

        static void PutU32(byte[] b, ref int at, uint v)
        {
            for (int i = 0; i < 4; i++)
            {
                b[at++] = unchecked((byte)(v >> (8 * i)));
            }
        }

        /// <summary>
        /// The canonical bytes the state hash is the FNV-1a of: <c>u64 stream_tick, u64 input_ack,
        /// u32 entity count</c>, then per entity in ascending id <c>u64 id, u64 spawn_tick, i64 x,
        /// i64 y, i64 z, u32 component count</c>, then per component in ascending type <c>u8 type,
        /// u32 length, bytes</c>; every integer little endian.
        /// </summary>
        public byte[] CanonicalBytes()
        {
            long n = 20;
            foreach (Replica e in entities.Values)
            {
                n += 44;
                foreach (byte[] c in e.Components.Values)
                {
                    n += 5 + c.Length;
                }
            }
            byte[] out_ = new byte[n];
            int at = 0;
            PutU64(out_, ref at, streamTick);
            PutU64(out_, ref at, inputAck);
            PutU32(out_, ref at, (uint)entities.Count);
            foreach (ulong id in Ids())
            {
                Replica e = entities[id];
                PutU64(out_, ref at, id);
                PutU64(out_, ref at, e.SpawnTick);
                foreach (long p in e.Position)
                {
                    PutU64(out_, ref at, unchecked((ulong)p));
                }
                PutU32(out_, ref at, (uint)e.Components.Count);
                foreach (KeyValuePair<byte, byte[]> c in e.Components)
                {
                    out_[at++] = c.Key;
                    PutU32(out_, ref at, (uint)c.Value.Length);
                    Buffer.BlockCopy(c.Value, 0, out_, at, c.Value.Length);
                    at += c.Value.Length;
                }
            }
            return out_;
        }

        /// <summary>FNV-1a 32 of <see cref="CanonicalBytes"/>.</summary>
        public uint StateHash()
        {
            return Fnv.Fnv1a32(CanonicalBytes());
        }
    }

    /// <summary>What the datagram server's world does on a tick.</summary>
    public sealed class DatagramTick
    {
        /// <summary>The highest client_seq the shard has processed.</summary>
        public ulong InputAck;

        /// <summary>The world's ops, in order.</summary>
        public List<WorldOp> Ops = new List<WorldOp>();
    }

    /// <summary>Wrapping a codec's errors into SessionErrors.</summary>
    static class Codec
    {
        public static SessionError Decode(DecodeError e)
        {
            return new SessionError("decode", e.Message, e);
        }

        public static SessionError Encode(EncodeError e)
        {
            return new SessionError("encode", e.Message, e);
        }
    }

    /// <summary>
    /// The server's half: a Subscription. A tick takes the shard's input ack and the world's ops;
    /// stream frames go reliable, datagrams unreliable, through an Outbox (at most MAX_QUEUED
    /// unreliable frames, the oldest unreliable dropped past it; the reliable ones never). A frame
    /// is a <c>datagram_ack</c>.
    /// </summary>
    public sealed class DatagramServer : ISessionHalf<DatagramTick, AckSummary>
    {
        readonly IDatagramSchema schema;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly Subscription Sub;

        /// <summary>The half over <paramref name="sub"/>.</summary>
        public DatagramServer(IDatagramSchema schema, Subscription sub)
        {
            this.schema = schema;
            Sub = sub;
        }

        /// <summary>A <c>datagram_ack</c> arrives.</summary>
        public AckSummary HandleFrame(Now now, string frame, byte[] bytes)
        {
            Session.ExpectFrame(frame, schema.AckName);
            DatagramAckFrame ack;
            try
            {
                ack = schema.DecodeAck(bytes);
            }
            catch (DecodeError e)
            {
                throw Codec.Decode(e);
            }
            return Sub.OnAck(ack);
        }

        /// <summary>Tick <c>now.Tick</c> passes: the world's ops, then what it sends is queued.</summary>
        public void HandleTick(Now now, DatagramTick input)
        {
            TickOutput o = Sub.Tick(now.Tick, input.InputAck, input.Ops);
            try
            {
                foreach (StreamFrame f in o.Stream)
                {
                    string name;
                    byte[] bytes;
                    switch (f.Kind)
                    {
                        case StreamKind.Spawn:
                            name = schema.SpawnName;
                            bytes = schema.EncodeSpawn(f.Spawn);
                            break;
                        case StreamKind.Despawn:
                            name = schema.DespawnName;
                            bytes = schema.EncodeDespawn(f.Despawn);
                            break;
                        default:
                            name = schema.FullFrameName;
                            bytes = schema.EncodeFullFrame(f.FullFrame);
                            break;
                    }
                    out_.Push(new Transmit(name, bytes, true));
                }
                foreach (DatagramFrame d in o.Datagrams)
                {
                    out_.Push(new Transmit(schema.DatagramName, schema.EncodeDatagram(d), false));
                }
            }
            catch (EncodeError e)
            {
                throw Codec.Encode(e);
            }
        }

        /// <summary>The next frame to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }

    /// <summary>
    /// The client's half: a ReplicaTable. A frame is a <c>datagram</c> or a stream frame
    /// (<c>spawn</c>, <c>despawn</c>, <c>full_frame</c>); its <c>datagram_ack</c>s are polled.
    /// </summary>
    public sealed class DatagramClient : ISessionHalf<object, DatagramSummary>
    {
        readonly IDatagramSchema schema;
        readonly Outbox out_ = new Outbox();

        /// <summary>The machine, for its lower-level methods.</summary>
        public readonly ReplicaTable Table;

        /// <summary>The half over <paramref name="table"/>.</summary>
        public DatagramClient(IDatagramSchema schema, ReplicaTable table)
        {
            this.schema = schema;
            Table = table;
        }

        /// <summary>A datagram or a stream frame arrives; a bad one is a SessionError and changes nothing.</summary>
        public DatagramSummary HandleFrame(Now now, string frame, byte[] bytes)
        {
            DatagramSummary summary;
            try
            {
                if (frame == schema.DatagramName)
                {
                    summary = Table.Receive(schema.DecodeDatagram(bytes));
                }
                else if (frame == schema.SpawnName)
                {
                    summary = Table.ApplyStream(new StreamFrame { Kind = StreamKind.Spawn, Spawn = schema.DecodeSpawn(bytes) });
                }
                else if (frame == schema.DespawnName)
                {
                    summary = Table.ApplyStream(new StreamFrame { Kind = StreamKind.Despawn, Despawn = schema.DecodeDespawn(bytes) });
                }
                else if (frame == schema.FullFrameName)
                {
                    summary = Table.ApplyStream(new StreamFrame { Kind = StreamKind.FullFrame, FullFrame = schema.DecodeFullFrame(bytes) });
                }
                else
                {
                    throw new SessionError("unexpected_frame", "unexpected frame `" + frame + "`");
                }
            }
            catch (DecodeError e)
            {
                throw Codec.Decode(e);
            }
            try
            {
                foreach (DatagramAckFrame a in Table.TakeAcks())
                {
                    out_.Push(new Transmit(schema.AckName, schema.EncodeAck(a), false));
                }
            }
            catch (EncodeError e)
            {
                throw Codec.Encode(e);
            }
            return summary;
        }

        /// <summary>The client has nothing to do on a tick.</summary>
        public void HandleTick(Now now, object input)
        {
        }

        /// <summary>The next ack to send, or null.</summary>
        public Transmit PollTransmit()
        {
            return out_.Poll();
        }
    }
}
