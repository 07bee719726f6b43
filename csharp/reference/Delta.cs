// The reference protocol's binding of the delta halves (`docs/spec/delta.md`): its `delta_plan`
// (kind 9) and `delta_ack` (kind 10) frames and PlanFlags, from spec/protocol/delta.wire, over the
// classes `ackwire gen --lang cs` writes.

using Ackwire.Protocol;
using Ackwire.Runtime.Sessions;
using WirePlan = Ackwire.Protocol.DeltaPlan;

namespace Ackwire.Reference
{
    /// <summary>The reference protocol's delta frames.</summary>
    public sealed class ReferenceDelta : IDeltaSchema
    {
        /// <summary>The one instance: the binding holds no state.</summary>
        public static readonly ReferenceDelta Instance = new ReferenceDelta();

        /// <summary><c>delta_plan</c>.</summary>
        public string PlanFrame { get { return "delta_plan"; } }
        /// <summary><c>delta_ack</c>.</summary>
        public string AckFrame { get { return "delta_ack"; } }
        /// <summary>PlanFlags.FULL_BASELINE.</summary>
        public byte FullBaseline { get { return (byte)PlanFlags.FULL_BASELINE; } }
        /// <summary>PlanFlags.BASELINE.</summary>
        public byte Baseline { get { return (byte)PlanFlags.BASELINE; } }

        /// <summary>Decodes a plan.</summary>
        public Ackwire.Runtime.Sessions.PlanFrame DecodePlan(byte[] bytes)
        {
            WirePlan p = WirePlan.Decode(bytes);
            return new Ackwire.Runtime.Sessions.PlanFrame
            {
                Flags = (byte)p.Flags,
                Sequence = p.Sequence,
                BaselineSeq = p.BaselineSeq,
                Entered = p.Entered,
                Left = p.Left,
            };
        }

        /// <summary>Encodes a plan.</summary>
        public byte[] EncodePlan(Ackwire.Runtime.Sessions.PlanFrame plan)
        {
            return new WirePlan
            {
                Flags = (PlanFlags)plan.Flags,
                Sequence = plan.Sequence,
                BaselineSeq = plan.BaselineSeq,
                Entered = plan.Entered,
                Left = plan.Left,
            }.Encode();
        }

        /// <summary>Decodes an ack.</summary>
        public DeltaAckFrame DecodeAck(byte[] bytes)
        {
            DeltaAck a = DeltaAck.Decode(bytes);
            return new DeltaAckFrame { Newest = a.Newest, Mask = a.Mask, Digest = a.Digest };
        }

        /// <summary>Encodes an ack.</summary>
        public byte[] EncodeAck(DeltaAckFrame ack)
        {
            return new DeltaAck { Newest = ack.Newest, Mask = ack.Mask, Digest = ack.Digest }.Encode();
        }
    }
}
