// Hostile peers against the C# datagram, baseline and delta halves (seeds 003, 002, 004 §7), over
// the reference protocol's schemas: each pair runs a seeded random world, and every frame between
// the halves is delivered as sent, mutated (bits flipped, cut short, bytes inserted, spliced with
// another frame) or replaced by random bytes. A half may refuse a frame only with a SessionError;
// any other exception escaping a half, or a machine past its documented limits, fails the run
// (exit 1). Built and run by hostile.sh; prints what it delivered.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime.Sessions;

static class Hostile
{
    static ulong state = 0x9E3779B97F4A7C15UL;
    static long deliveries;
    static long hostile;
    static long refused;

    static ulong Next()
    {
        unchecked
        {
            state += 0x9E3779B97F4A7C15UL;
            return Digests.Mix64(state);
        }
    }

    static int Below(int n)
    {
        return (int)(Next() % (ulong)n);
    }

    static byte[] Mutate(byte[] b, byte[] other)
    {
        byte[] m;
        switch (Below(6))
        {
            case 0:
                m = (byte[])b.Clone();
                if (m.Length > 0)
                {
                    m[Below(m.Length)] ^= (byte)(1 << Below(8));
                }
                return m;
            case 1:
                m = new byte[b.Length == 0 ? 0 : Below(b.Length)];
                Array.Copy(b, m, m.Length);
                return m;
            case 2:
                {
                    m = new byte[b.Length + 1];
                    int at = Below(b.Length + 1);
                    Array.Copy(b, 0, m, 0, at);
                    m[at] = (byte)Next();
                    Array.Copy(b, at, m, at + 1, b.Length - at);
                    return m;
                }
            case 3:
                {
                    int cut = Below(b.Length + 1);
                    int from = Below(other.Length + 1);
                    m = new byte[cut + other.Length - from];
                    Array.Copy(b, m, cut);
                    Array.Copy(other, from, m, cut, other.Length - from);
                    return m;
                }
            case 4:
                m = (byte[])b.Clone();
                for (int i = 0; i < m.Length; i++)
                {
                    if (Below(8) == 0)
                    {
                        m[i] = (byte)Next();
                    }
                }
                return m;
            default:
                m = new byte[Below(64)];
                for (int i = 0; i < m.Length; i++)
                {
                    m[i] = (byte)Next();
                }
                return m;
        }
    }

    /// Delivers <paramref name="t"/> (or a hostile copy) to <paramref name="half"/>, with any
    /// frame name now and then: only a SessionError may come back.
    static void Deliver<TTick, TReport>(ISessionHalf<TTick, TReport> half, Transmit t, byte[] other, string[] names, ulong ms)
    {
        byte[] bytes = t.Bytes;
        string frame = t.Frame;
        if (Below(3) == 0)
        {
            bytes = Mutate(bytes, other);
            hostile++;
        }
        if (Below(50) == 0)
        {
            frame = names[Below(names.Length)];
            hostile++;
        }
        deliveries++;
        try
        {
            half.HandleFrame(new Now(0, ms), frame, bytes);
        }
        catch (SessionError)
        {
            refused++;
        }
    }

    static void Check(bool ok, string what)
    {
        if (!ok)
        {
            throw new InvalidOperationException("limit broken: " + what);
        }
    }

    static readonly string[] Names = { "datagram", "spawn", "despawn", "full_frame", "datagram_ack", "snapshot", "snapshot_ack", "delta_plan", "delta_ack", "acked", "acked_packed" };

    static void Datagrams(int ticks)
    {
        ReferenceDatagram s = ReferenceDatagram.Instance;
        DatagramServer server = new DatagramServer(s, new Subscription(s, new SubscriptionConfig { Precision = 0.01f, MaxDatagram = 300, SentWindow = 64 }));
        ReplicaLimits limits = new ReplicaLimits { MaxEntities = 40, MaxHeld = 8, MaxComponentBytes = 4096, MaxHeldBytes = 16384 };
        DatagramClient client = new DatagramClient(s, new ReplicaTable(limits));
        HashSet<ulong> live = new HashSet<ulong>();
        byte[] last = new byte[0];
        for (ulong tick = 1; tick <= (ulong)ticks; tick++)
        {
            DatagramTick t = new DatagramTick { InputAck = tick / 2 };
            for (int i = Below(4); i > 0; i--)
            {
                ulong id = (ulong)Below(60);
                if (!live.Contains(id))
                {
                    live.Add(id);
                    t.Ops.Add(new WorldOp { Kind = WorldOpKind.Spawn, Id = id, X = Below(1000) - 500, Components = new List<KeyValuePair<byte, byte[]>> { new KeyValuePair<byte, byte[]>((byte)Below(4), new byte[Below(40)]) } });
                }
                else if (Below(5) == 0)
                {
                    live.Remove(id);
                    t.Ops.Add(new WorldOp { Kind = WorldOpKind.Despawn, Id = id });
                }
                else
                {
                    t.Ops.Add(new WorldOp { Kind = WorldOpKind.Move, Id = id, X = Below(100000) * 0.01, Y = 1.5 });
                }
            }
            if (Below(40) == 0)
            {
                t.Ops.Add(new WorldOp { Kind = WorldOpKind.FullFrame });
            }
            server.HandleTick(new Now(tick, tick * 16), t);
            for (Transmit x = server.PollTransmit(); x != null; x = server.PollTransmit())
            {
                // Lost, duplicated or delivered, as a lossy link would (the stream's frames too:
                // a hostile server need not keep its stream in order).
                int copies = Below(10) == 0 ? 0 : Below(10) == 0 ? 2 : 1;
                for (int c = 0; c < copies; c++)
                {
                    Deliver(client, x, last, Names, tick * 16);
                }
                last = x.Bytes;
            }
            for (Transmit a = client.PollTransmit(); a != null; a = client.PollTransmit())
            {
                Deliver(server, a, last, Names, tick * 16);
            }
            Check(client.Table.Count <= limits.MaxEntities, "replica entities");
            Check(client.Table.HeldDatagrams <= limits.MaxHeld, "held datagrams");
            Check(client.Table.HeldBytes <= limits.MaxHeldBytes, "held datagram bytes");
            Check(client.Table.ComponentBytes <= limits.MaxComponentBytes, "component bytes");
        }
    }

    static void Baselines(int ticks)
    {
        ReferenceBaseline s = ReferenceBaseline.Instance;
        Scene<object> scene = new Scene<object>(s);
        BaselineServer<object> server = new BaselineServer<object>(s, new SnapshotWriter<object>(s, 1, 400, 65500, BaselineLimits.Default));
        BaselineClient<object> client = new BaselineClient<object>(s, new SnapshotClient<object>(s, 32));
        byte[] last = new byte[0];
        for (ulong tick = 1; tick <= (ulong)ticks; tick++)
        {
            for (int i = Below(4); i > 0; i--)
            {
                uint slot = (uint)Below(80);
                switch (Below(4))
                {
                    case 0:
                        scene.Spawn(new EntityId(slot, (byte)Below(256)), Below(2) == 0 ? 1u : (uint?)null);
                        break;
                    case 1:
                        scene.Despawn(slot);
                        break;
                    default:
                        try
                        {
                            scene.Set(slot, 0, new Ackwire.Protocol.Transform { X = Below(2000) / 64.0, Y = 1, Z = 0, Yaw = Below(360) });
                            scene.Set(slot, 2, new Ackwire.Protocol.Vitality { Hp = (byte)Below(128) });
                        }
                        catch (SessionError)
                        {
                            // The slot is empty: the world's own mistake, refused as a world error.
                        }
                        break;
                }
            }
            server.HandleTick(new Now(tick, tick * 16), scene);
            for (Transmit x = server.PollTransmit(); x != null; x = server.PollTransmit())
            {
                if (Below(8) != 0)
                {
                    Deliver(client, x, last, Names, tick * 16);
                }
                last = x.Bytes;
            }
            for (Transmit a = client.PollTransmit(); a != null; a = client.PollTransmit())
            {
                Deliver(server, a, last, Names, tick * 16);
            }
            Check(client.Client.Count <= 32, "snapshot client entities");
            Check(server.Writer.Baseline.PendingCount <= s.AckWindow + 1, "held snapshots");
        }
    }

    static void Deltas(int ticks)
    {
        ReferenceDelta s = ReferenceDelta.Instance;
        DeltaServer server = new DeltaServer(s, new DeltaBaseline(16, RecoveryPolicy.AckRecovery, new FlowControl { StalledAfter = 200, KeepaliveEvery = 50 }, true));
        MirrorLimits limits = new MirrorLimits { MaxKeys = 50 };
        DeltaClient client = new DeltaClient(s, new DeltaMirror(limits, true));
        Dictionary<uint, ushort> world = new Dictionary<uint, ushort>();
        byte[] last = new byte[0];
        for (ulong tick = 1; tick <= (ulong)ticks; tick++)
        {
            for (int i = Below(5); i > 0; i--)
            {
                uint slot = (uint)Below(70);
                if (world.ContainsKey(slot) && Below(2) == 0)
                {
                    world.Remove(slot);
                }
                else
                {
                    world[slot] = (ushort)Below(4);
                }
            }
            HashSet<ulong> visible = new HashSet<ulong>();
            foreach (KeyValuePair<uint, ushort> kv in world)
            {
                visible.Add(Digests.SlotKeyOf(kv.Key, kv.Value));
            }
            server.HandleTick(new Now(tick, tick * 16), visible);
            for (Transmit x = server.PollTransmit(); x != null; x = server.PollTransmit())
            {
                if (Below(6) != 0)
                {
                    Deliver(client, x, last, Names, tick * 16);
                }
                last = x.Bytes;
            }
            for (Transmit a = client.PollTransmit(); a != null; a = client.PollTransmit())
            {
                Deliver(server, a, last, Names, tick * 16);
            }
            Check(client.Mirror.Count <= limits.MaxKeys, "mirror keys");
            Check(server.Baseline.HeldStates <= 16, "delta history");
        }
    }

    static int Main(string[] args)
    {
        int ticks = args.Length > 0 ? int.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 3000;
        try
        {
            Datagrams(ticks);
            Baselines(ticks);
            Deltas(ticks);
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("hostile: an exception escaped a half after " + deliveries + " deliveries: " + e);
            return 1;
        }
        Console.WriteLine("hostile: " + deliveries + " deliveries, " + hostile + " hostile, " + refused + " refused with a SessionError, nothing else escaped");
        return 0;
    }
}
