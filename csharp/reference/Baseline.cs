// The reference protocol's binding of the NetBaseline halves (`docs/spec/baseline.md`): its
// `snapshot` (kind 8) and `snapshot_ack` (kind 11) frames and its four components (Transform,
// Velocity, Health, Team, in the ComponentMask's bit order), from spec/protocol/baseline.wire, over
// the classes `ackwire gen --lang cs` writes. A component is the generated class itself (an object:
// index 0 a Transform, 1 a Velocity, 2 a Vitality, 3 a Team).

using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Reference
{
    /// <summary>The reference protocol's snapshot frames and components.</summary>
    public sealed class ReferenceBaseline : IBaselineSchema<object>
    {
        /// <summary>The one instance: the binding holds no state.</summary>
        public static readonly ReferenceBaseline Instance = new ReferenceBaseline();

        static readonly ComponentMask[] MaskBits = { ComponentMask.TRANSFORM, ComponentMask.VELOCITY, ComponentMask.HEALTH, ComponentMask.TEAM };

        /// <summary><c>snapshot</c>.</summary>
        public string SnapshotFrame { get { return "snapshot"; } }
        /// <summary><c>snapshot_ack</c>.</summary>
        public string AckFrame { get { return "snapshot_ack"; } }
        /// <summary>Four: Transform, Velocity, Health, Team.</summary>
        public int ComponentTypes { get { return 4; } }
        /// <summary>ACK_WINDOW.</summary>
        public int AckWindow { get { return Constants.ACK_WINDOW; } }
        /// <summary>MAX_LOST_PER_SNAPSHOT.</summary>
        public int MaxLostPerSnapshot { get { return Constants.MAX_LOST_PER_SNAPSHOT; } }
        /// <summary>The kind and the sequence.</summary>
        public int HeaderBytes { get { return 3; } }
        /// <summary>The 7-bit lost count and the 16-bit entry count.</summary>
        public int CountBits { get { return 7 + 16; } }
        /// <summary>wide, a wide gap, the generation and the mask.</summary>
        public int EntryHeadBits { get { return 1 + 24 + 8 + 4; } }
        /// <summary>An EntityRef: a 24-bit slot and an 8-bit generation.</summary>
        public int LostBits { get { return 32; } }

        static void Write(BitWriter w, int index, object v)
        {
            switch (index)
            {
                case 0: ((Transform)v).Write(w); return;
                case 1: ((Velocity)v).Write(w); return;
                case 2: ((Vitality)v).Write(w); return;
                default: ((Team)v).Write(w); return;
            }
        }

        /// <summary>The component's bits, padded to a byte.</summary>
        public byte[] ComponentBits(int index, object value)
        {
            BitWriter w = new BitWriter();
            Write(w, index, value);
            return w.ToArray();
        }

        /// <summary>The component's bits in a body.</summary>
        public long ComponentBitLen(int index, object value)
        {
            switch (index)
            {
                case 0: return ((Transform)value).BitLen();
                case 1: return ((Velocity)value).BitLen();
                case 2: return ((Vitality)value).BitLen();
                default: return ((Team)value).BitLen();
            }
        }

        /// <summary>Decodes a snapshot.</summary>
        public SnapshotFrame<object> DecodeSnapshot(byte[] bytes)
        {
            Snapshot s = Snapshot.Decode(bytes);
            EntityId[] lost = new EntityId[s.Body.Lost.Length];
            for (int i = 0; i < lost.Length; i++)
            {
                lost[i] = new EntityId(s.Body.Lost[i].Slot, s.Body.Lost[i].Generation);
            }
            WireEntry<object>[] entries = new WireEntry<object>[s.Body.Entries.Length];
            for (int i = 0; i < entries.Length; i++)
            {
                Entry e = s.Body.Entries[i];
                entries[i] = new WireEntry<object>
                {
                    Gap = e.WideGap ?? (e.Gap.HasValue ? e.Gap.Value : 0u),
                    Generation = e.Generation,
                    Components = new object[] { e.Transform, e.Velocity, e.Health, e.Team },
                };
            }
            return new SnapshotFrame<object> { Sequence = s.Sequence, Lost = lost, Entries = entries };
        }

        static Entry Wire(WireEntry<object> e)
        {
            bool wide = e.Gap >= 1u << 7;
            ComponentMask mask = 0;
            for (int i = 0; i < e.Components.Length && i < MaskBits.Length; i++)
            {
                if (e.Components[i] != null)
                {
                    mask |= MaskBits[i];
                }
            }
            return new Entry
            {
                Wide = wide,
                Gap = wide ? (byte?)null : (byte)e.Gap,
                WideGap = wide ? e.Gap : (uint?)null,
                Generation = e.Generation,
                Mask = mask,
                Transform = (Transform)e.Components[0],
                Velocity = (Velocity)e.Components[1],
                Health = (Vitality)e.Components[2],
                Team = (Team)e.Components[3],
            };
        }

        /// <summary>Encodes a snapshot.</summary>
        public byte[] EncodeSnapshot(SnapshotFrame<object> s)
        {
            EntityRef[] lost = new EntityRef[s.Lost.Length];
            for (int i = 0; i < lost.Length; i++)
            {
                lost[i] = new EntityRef { Slot = s.Lost[i].Slot, Generation = s.Lost[i].Generation };
            }
            Entry[] entries = new Entry[s.Entries.Length];
            for (int i = 0; i < entries.Length; i++)
            {
                entries[i] = Wire(s.Entries[i]);
            }
            return new Snapshot { Sequence = s.Sequence, Body = new SnapshotBody { Lost = lost, Entries = entries } }.Encode();
        }

        /// <summary>Decodes an acknowledgement's sequence.</summary>
        public ushort DecodeAck(byte[] bytes)
        {
            return SnapshotAck.Decode(bytes).Sequence;
        }

        /// <summary>Encodes the acknowledgement of <paramref name="sequence"/>.</summary>
        public byte[] EncodeAck(ushort sequence)
        {
            return new SnapshotAck { Sequence = sequence }.Encode();
        }
    }
}
