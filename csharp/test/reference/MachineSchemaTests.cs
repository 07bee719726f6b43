// Tests of the machine schemas `ackwire gen --lang cs` writes for the reference protocol's
// `schema ReferenceDatagram`, `ReferenceBaseline` and `ReferenceDelta` (ReferenceDatagram.cs,
// ReferenceBaseline.cs, ReferenceDelta.cs), over the generated codec: a snapshot's gap goes narrow
// below 128 and wide from 128 (NB-4) with the mask of the components present, and back; an
// update's length is the bytes it adds to a datagram (DG-7); a plan and an ack go through the
// codec and back.

using Ackwire.Protocol;
using Ackwire.Runtime.Sessions;
using static Harness;

static class MachineSchemaTests
{
    public static void BaselineGapsAndMask()
    {
        ReferenceBaseline s = ReferenceBaseline.Instance;
        Transform transform = new Transform { X = 1, Y = 2, Z = 3, Yaw = 0 };
        WireEntry<object>[] entries =
        {
            new WireEntry<object> { Gap = 127, Generation = 1, Components = new object[] { null, null, new Vitality { Hp = 9 }, null } },
            new WireEntry<object> { Gap = 128, Generation = 2, Components = new object[] { transform, null, null, new Team { Team_ = 2 } } },
        };
        byte[] bytes = s.EncodeSnapshot(new SnapshotFrame<object>
        {
            Sequence = 513,
            Lost = new[] { new EntityId(3, 4) },
            Entries = entries,
        });
        Snapshot wire = Snapshot.Decode(bytes);
        Equal(false, wire.Body.Entries[0].Wide, "gap 127 is narrow");
        Equal((byte?)127, wire.Body.Entries[0].Gap, "its gap");
        Equal(ComponentMask.HEALTH, wire.Body.Entries[0].Mask, "its mask");
        Equal(true, wire.Body.Entries[1].Wide, "gap 128 is wide");
        Equal((uint?)128, wire.Body.Entries[1].WideGap, "its wide gap");
        Equal(ComponentMask.TRANSFORM | ComponentMask.TEAM, wire.Body.Entries[1].Mask, "its mask");

        SnapshotFrame<object> back = s.DecodeSnapshot(bytes);
        Equal((ushort)513, back.Sequence, "sequence");
        Equal(new EntityId(3, 4), back.Lost[0], "lost");
        Equal(127u, back.Entries[0].Gap, "narrow gap back");
        Equal(128u, back.Entries[1].Gap, "wide gap back");
        Equal((byte)9, ((Vitality)back.Entries[0].Components[2]).Hp, "health back");
        Equal(3.0, ((Transform)back.Entries[1].Components[0]).Z, "transform back");
        True(back.Entries[1].Components[1] == null, "no velocity");
        // 24 + 24 + 20 + 9 bits.
        Equal(77L, s.ComponentBitLen(0, transform), "a transform's bits");
        Equal(10, s.ComponentBits(0, transform).Length, "its bytes");
        Equal((ushort)65535, s.DecodeAck(s.EncodeAck(65535)), "ack");
    }

    public static void DatagramUpdateLen()
    {
        ReferenceDatagram s = ReferenceDatagram.Instance;
        UpdateFrame first = new UpdateFrame { Id = 7, SpawnTag = 3, Mask = s.MaskX, X = -5 };
        UpdateFrame second = new UpdateFrame
        {
            Id = 300,
            SpawnTag = 9,
            Mask = (byte)(s.MaskY | s.MaskComponents),
            Y = 1000,
            Components = new[] { new ComponentChange { Type = 2, Data = new byte[] { 1, 2, 3 } } },
        };
        DatagramHeader header = new DatagramHeader { Frame = 1, Tick = 2, InputAck = 3, StreamTick = 4, Precision = 0.5f, Parts = 1 };
        int one = s.EncodeDatagram(new DatagramFrame { Header = header, Updates = new[] { first } }).Length;
        byte[] two = s.EncodeDatagram(new DatagramFrame { Header = header, Updates = new[] { first, second } });
        Equal(two.Length - one, s.UpdateLen(second, true, first.Id), "the second update's bytes");
        True(one - s.UpdateLen(first, false, 0) <= s.MaxHeaderLen, "the header within MaxHeaderLen");
        DatagramFrame back = s.DecodeDatagram(two);
        Equal(300UL, back.Updates[1].Id, "id back");
        Equal((long?)1000, back.Updates[1].Y, "y back");
        Equal((byte)2, back.Updates[1].Components[0].Type, "component back");
    }

    public static void DeltaPlanAndAck()
    {
        ReferenceDelta s = ReferenceDelta.Instance;
        Ackwire.Runtime.Sessions.PlanFrame plan = new Ackwire.Runtime.Sessions.PlanFrame
        {
            Flags = (byte)(s.FullBaseline | s.Baseline),
            Sequence = 9,
            BaselineSeq = 4,
            Entered = new ulong[] { 1, 5 },
            Left = new ulong[] { 2 },
        };
        Ackwire.Runtime.Sessions.PlanFrame back = s.DecodePlan(s.EncodePlan(plan));
        Equal(plan.Flags, back.Flags, "flags");
        Equal((ulong?)4, back.BaselineSeq, "baseline_seq");
        Equal(string.Join(",", plan.Entered), string.Join(",", back.Entered), "entered");
        Equal(string.Join(",", plan.Left), string.Join(",", back.Left), "left");
        DeltaAckFrame ack = s.DecodeAck(s.EncodeAck(new DeltaAckFrame { Newest = 9, Mask = 3, Digest = 77 }));
        Equal(77UL, ack.Digest, "digest");
    }
}
