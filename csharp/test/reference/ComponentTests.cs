// Tests of the reference state's groups as datagram v2 components (DG-6), which `ackwire gen
// --lang cs` writes into Reference.cs (`ReferenceComponent`), as codec/tests/typed_components.rs
// tests the Rust machines' `ReferenceComponent`:
// - a server's entities travel through a Subscription and a ReplicaTable over the generated
//   ReferenceDatagram schema, every frame through its bytes and a third of the datagrams lost
//   until the network heals; the client's replica, decoded back into typed components, then
//   equals the server's entities;
// - a payload that does not decode to exactly one value is refused with the codec's error at its
//   offset in the component, under the group's name; a removal and a type the state does not
//   declare read as null.

using System;
using System.Collections.Generic;
using System.Globalization;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;
using static Harness;

static class ComponentTests
{
    static readonly ReferenceDatagram Schema = ReferenceDatagram.Instance;

    /// The typed components of entity <paramref name="id"/> at <paramref name="tick"/>: a pose
    /// every entity has, health that changes, a vehicle for even ids and an orientation for ids
    /// divisible by three.
    static List<ReferenceComponent> Entity(ulong id, ulong tick)
    {
        List<ReferenceComponent> out_ = new List<ReferenceComponent>
        {
            ReferenceComponent.Of(new PoseFull
            {
                X = tick * 0.5f,
                Y = id,
                Z = -2.0f,
                // Whole steps of 360/65536 degrees, which the quantization keeps exactly.
                Yaw = (id * 1000 + tick) * (360.0 / 65536.0),
            }),
            ReferenceComponent.Of(new Health { Hp = (byte)(tick < 100 ? 100 - tick : 0), Armor = (byte)id }),
        };
        if (id % 2 == 0)
        {
            out_.Add(ReferenceComponent.Of(new Vehicle { Vehicle_ = (ushort)(id + 1), Seat = (byte)(tick % 4) }));
        }
        if (id % 3 == 0)
        {
            out_.Add(ReferenceComponent.Of(new Orientation { Q = new SmallestThree((byte)(tick % 4), -5, (short)id, 7) }));
        }
        return out_;
    }

    /// A typed component as text, every field exactly (a float by its shortest round trip), so
    /// that two lists compare as strings and a difference names the field.
    static string Show(ReferenceComponent c)
    {
        CultureInfo inv = CultureInfo.InvariantCulture;
        switch (c.Kind)
        {
            case ReferenceComponentKind.Pose:
                return "pose " + c.Pose.X.ToString("R", inv) + " " + c.Pose.Y.ToString("R", inv) + " "
                    + c.Pose.Z.ToString("R", inv) + " " + c.Pose.Yaw.ToString("R", inv);
            case ReferenceComponentKind.Health:
                return "health " + c.Health.Hp + " " + c.Health.Armor;
            case ReferenceComponentKind.Vehicle:
                return "vehicle " + c.Vehicle.Vehicle_ + " " + c.Vehicle.Seat;
            default:
                return "orient " + c.Orient.Q;
        }
    }

    static string ShowAll(List<ReferenceComponent> components)
    {
        List<string> shown = new List<string>();
        foreach (ReferenceComponent c in components)
        {
            shown.Add(Show(c));
        }
        return string.Join("; ", shown);
    }

    /// The components as the subscription takes them: (type, bytes).
    static List<KeyValuePair<byte, byte[]>> Encoded(List<ReferenceComponent> components)
    {
        List<KeyValuePair<byte, byte[]>> out_ = new List<KeyValuePair<byte, byte[]>>();
        foreach (ReferenceComponent c in components)
        {
            ComponentChange change = c.ToComponent();
            out_.Add(new KeyValuePair<byte, byte[]>(change.Type, change.Data));
        }
        return out_;
    }

    /// A replica's components decoded back, by type.
    static List<ReferenceComponent> Decoded(SortedDictionary<byte, byte[]> components)
    {
        List<ReferenceComponent> out_ = new List<ReferenceComponent>();
        foreach (KeyValuePair<byte, byte[]> c in components)
        {
            ReferenceComponent typed = ReferenceComponent.FromComponent(new ComponentChange { Type = c.Key, Data = c.Value });
            if (typed != null)
            {
                out_.Add(typed);
            }
        }
        return out_;
    }

    /// A stream frame through its bytes, as the client reads it.
    static StreamFrame Wire(StreamFrame f)
    {
        switch (f.Kind)
        {
            case StreamKind.Spawn:
                return new StreamFrame { Kind = f.Kind, Spawn = Schema.DecodeSpawn(Schema.EncodeSpawn(f.Spawn)) };
            case StreamKind.Despawn:
                return new StreamFrame { Kind = f.Kind, Despawn = Schema.DecodeDespawn(Schema.EncodeDespawn(f.Despawn)) };
            default:
                return new StreamFrame { Kind = f.Kind, FullFrame = Schema.DecodeFullFrame(Schema.EncodeFullFrame(f.FullFrame)) };
        }
    }

    public static void ReplicaEqualsTheServersEntities()
    {
        Subscription server = new Subscription(Schema, SubscriptionConfig.Default);
        ReplicaTable client = new ReplicaTable(ReplicaLimits.Default);
        ulong[] ids = { 0, 1, 2, 3, 4, 5 };
        int sent = 0;
        int lost = 0;
        for (ulong tick = 1; tick <= 40; tick++)
        {
            List<WorldOp> ops = new List<WorldOp>();
            foreach (ulong id in ids)
            {
                List<KeyValuePair<byte, byte[]>> components = Encoded(Entity(id, tick));
                if (tick == 1)
                {
                    ops.Add(new WorldOp { Kind = WorldOpKind.Spawn, Id = id, X = id, Components = components });
                    continue;
                }
                ops.Add(new WorldOp { Kind = WorldOpKind.Move, Id = id, X = id, Y = tick * 0.25 });
                foreach (KeyValuePair<byte, byte[]> c in components)
                {
                    ops.Add(new WorldOp { Kind = WorldOpKind.Set, Id = id, Type = c.Key, Data = c.Value });
                }
            }
            TickOutput out_ = server.Tick(tick, tick, ops);
            foreach (StreamFrame f in out_.Stream)
            {
                client.ApplyStream(Wire(f));
            }
            foreach (DatagramFrame d in out_.Datagrams)
            {
                sent++;
                if (tick < 30 && sent % 3 == 0)
                {
                    lost++;
                    continue;
                }
                client.Receive(Schema.DecodeDatagram(Schema.EncodeDatagram(d)));
            }
            foreach (DatagramAckFrame ack in client.TakeAcks())
            {
                server.OnAck(Schema.DecodeAck(Schema.EncodeAck(ack)));
            }
        }
        True(lost > 0, "datagrams were lost");
        // The state check: every entity the client holds decodes to the server's, group by group.
        Equal(ids.Length, client.Count, "entities held");
        foreach (ulong id in ids)
        {
            Replica replica = client.Entity(id);
            True(replica != null, "entity " + id + " is held");
            Equal(ShowAll(Entity(id, 40)), ShowAll(Decoded(replica.Components)), "entity " + id);
        }
    }

    /// The error <paramref name="read"/> throws.
    static DecodeError ErrorOf(Action read)
    {
        try
        {
            read();
        }
        catch (DecodeError e)
        {
            return e;
        }
        throw new Failure("no error");
    }

    static ReferenceComponent From(byte type, byte[] data)
    {
        return ReferenceComponent.FromComponent(new ComponentChange { Type = type, Data = data });
    }

    public static void PayloadsRefusedWhereTheyFail()
    {
        ComponentChange health = ReferenceComponent.Of(new Health { Hp = 9, Armor = 1 }).ToComponent();
        Equal((byte)1, health.Type, "health is group 1");
        Equal("09-01", BitConverter.ToString(health.Data), "health as kind 6 writes it");
        byte[] longer = { 9, 1, 0 };
        DecodeError e = ErrorOf(() => From(1, longer));
        Equal(ErrorKind.TrailingBytes, e.Kind, "a byte past the health");
        Equal(2L, e.Offset, "at its offset in the component");
        Equal("health", e.Path, "under the group's name");
        e = ErrorOf(() => From(1, new byte[] { 9 }));
        Equal(ErrorKind.Truncated, e.Kind, "a health cut short");
        Equal(1L, e.Offset, "where it ends");
        Equal("health.armor", e.Path, "in the field it ends in");
        e = ErrorOf(() => From(0, new byte[] { 1, 2 }));
        Equal(ErrorKind.Truncated, e.Kind, "a pose cut short");
        Equal("pose", e.Path.Split('.')[0], "under the pose");
        // The orientation is a packed record: 29 bits, padded to 4 bytes.
        ComponentChange orient = ReferenceComponent.Of(new Orientation { Q = new SmallestThree(2, -5, 3, 7) }).ToComponent();
        Equal((byte)3, orient.Type, "orient is group 3");
        Equal(4, orient.Data.Length, "29 bits in 4 bytes");
        byte[] padded = (byte[])orient.Data.Clone();
        padded[3] |= 0x80;
        e = ErrorOf(() => From(3, padded));
        Equal(ErrorKind.ReservedBit, e.Kind, "a padding bit set");
        Equal("orient", e.Path, "under the orientation");
        byte[] trailing = { orient.Data[0], orient.Data[1], orient.Data[2], orient.Data[3], 0 };
        e = ErrorOf(() => From(3, trailing));
        Equal(ErrorKind.TrailingBytes, e.Kind, "a byte past the orientation");
        Equal(4L, e.Offset, "after its 4 bytes");
        // DG-6: a type the state does not declare is skipped, as is a removal.
        True(From(9, new byte[] { 1, 2, 3 }) == null, "an unknown type reads as null");
        True(From(1, null) == null, "a removal reads as null");
        ReferenceComponent back = ReferenceComponent.FromComponent(health);
        Equal(ReferenceComponentKind.Health, back.Kind, "health back");
        Equal("health 9 1", Show(back), "its values");
        True(back.Pose == null, "no other group");
        Equal("orient " + new SmallestThree(2, -5, 3, 7), Show(ReferenceComponent.FromComponent(orient)), "the orientation back");
    }
}
