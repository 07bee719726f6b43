// The reference protocol's binding of the datagram v2 halves (`docs/spec/datagram.md`): its
// `datagram`, the reliable stream's `spawn`, `despawn` and `full_frame`, and the client's
// `datagram_ack`, from spec/protocol/datagram.wire, over the classes `ackwire gen --lang cs` writes
// (Ackwire.Protocol). The machines keep frames of their own (Ackwire.Runtime.Sessions), so this
// binding copies between the two; every check of the wire is the generated codec's.

using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

namespace Ackwire.Reference
{
    /// <summary>The reference protocol's datagram frames.</summary>
    public sealed class ReferenceDatagram : IDatagramSchema
    {
        /// <summary>The one instance: the binding holds no state.</summary>
        public static readonly ReferenceDatagram Instance = new ReferenceDatagram();

        /// <summary><c>datagram</c>.</summary>
        public string DatagramName { get { return "datagram"; } }
        /// <summary><c>spawn</c>.</summary>
        public string SpawnName { get { return "spawn"; } }
        /// <summary><c>despawn</c>.</summary>
        public string DespawnName { get { return "despawn"; } }
        /// <summary><c>full_frame</c>.</summary>
        public string FullFrameName { get { return "full_frame"; } }
        /// <summary><c>datagram_ack</c>.</summary>
        public string AckName { get { return "datagram_ack"; } }
        /// <summary>UpdateMask.X.</summary>
        public byte MaskX { get { return (byte)UpdateMask.X; } }
        /// <summary>UpdateMask.Y.</summary>
        public byte MaskY { get { return (byte)UpdateMask.Y; } }
        /// <summary>UpdateMask.Z.</summary>
        public byte MaskZ { get { return (byte)UpdateMask.Z; } }
        /// <summary>UpdateMask.COMPONENTS.</summary>
        public byte MaskComponents { get { return (byte)UpdateMask.COMPONENTS; } }
        /// <summary>MAX_HEADER_LEN.</summary>
        public int MaxHeaderLen { get { return (int)Constants.MAX_HEADER_LEN; } }

        static Component[] Wire(ComponentChange[] cs)
        {
            if (cs == null)
            {
                return null;
            }
            Component[] out_ = new Component[cs.Length];
            for (int i = 0; i < cs.Length; i++)
            {
                out_[i] = new Component { Type = cs[i].Type, Data = cs[i].Data };
            }
            return out_;
        }

        static ComponentChange[] Machine(Component[] cs)
        {
            if (cs == null)
            {
                return null;
            }
            ComponentChange[] out_ = new ComponentChange[cs.Length];
            for (int i = 0; i < cs.Length; i++)
            {
                out_[i] = new ComponentChange { Type = cs[i].Type, Data = cs[i].Data };
            }
            return out_;
        }

        static Update Wire(UpdateFrame u)
        {
            return new Update
            {
                Id = u.Id,
                SpawnTag = u.SpawnTag,
                Mask = (UpdateMask)u.Mask,
                X = u.X,
                Y = u.Y,
                Z = u.Z,
                Components = Wire(u.Components),
            };
        }

        /// <summary>The update's length after <paramref name="prev"/>: its id is written as the
        /// difference from the previous one in the ascending list.</summary>
        public int UpdateLen(UpdateFrame update, bool hasPrev, ulong prev)
        {
            Ascending list = new Ascending(64);
            if (hasPrev)
            {
                list.Step(prev);
            }
            return Wire(update).EncodedLen(ref list);
        }

        /// <summary>Writes the update on its own, which refuses what a decoder would.</summary>
        public void CheckUpdate(UpdateFrame update)
        {
            Update u = Wire(update);
            u.Write(new Writer(u.EncodedLen()));
        }

        /// <summary>Decodes a datagram.</summary>
        public DatagramFrame DecodeDatagram(byte[] bytes)
        {
            Datagram d = Datagram.Decode(bytes);
            UpdateFrame[] updates = new UpdateFrame[d.Updates.Length];
            for (int i = 0; i < updates.Length; i++)
            {
                Update u = d.Updates[i];
                updates[i] = new UpdateFrame
                {
                    Id = u.Id,
                    SpawnTag = u.SpawnTag,
                    Mask = (byte)u.Mask,
                    X = u.X,
                    Y = u.Y,
                    Z = u.Z,
                    Components = Machine(u.Components),
                };
            }
            return new DatagramFrame
            {
                Header = new DatagramHeader
                {
                    Frame = d.Frame,
                    Tick = d.Tick,
                    InputAck = d.InputAck,
                    StreamTick = d.StreamTick,
                    Precision = d.Precision,
                    Parts = d.Parts,
                },
                Updates = updates,
            };
        }

        /// <summary>Encodes a datagram.</summary>
        public byte[] EncodeDatagram(DatagramFrame d)
        {
            Update[] updates = new Update[d.Updates.Length];
            for (int i = 0; i < updates.Length; i++)
            {
                updates[i] = Wire(d.Updates[i]);
            }
            return new Datagram
            {
                Frame = d.Header.Frame,
                Tick = d.Header.Tick,
                InputAck = d.Header.InputAck,
                StreamTick = d.Header.StreamTick,
                Precision = d.Header.Precision,
                Parts = d.Header.Parts,
                Updates = updates,
            }.Encode();
        }

        /// <summary>Decodes a spawn.</summary>
        public SpawnFrame DecodeSpawn(byte[] bytes)
        {
            Spawn s = Spawn.Decode(bytes);
            return new SpawnFrame
            {
                Tick = s.Tick,
                Id = s.Id,
                Precision = s.Precision,
                X = s.X,
                Y = s.Y,
                Z = s.Z,
                Components = Machine(s.Components),
            };
        }

        /// <summary>Encodes a spawn.</summary>
        public byte[] EncodeSpawn(SpawnFrame f)
        {
            return new Spawn
            {
                Tick = f.Tick,
                Id = f.Id,
                Precision = f.Precision,
                X = f.X,
                Y = f.Y,
                Z = f.Z,
                Components = Wire(f.Components) ?? new Component[0],
            }.Encode();
        }

        /// <summary>Decodes a despawn.</summary>
        public DespawnFrame DecodeDespawn(byte[] bytes)
        {
            Despawn d = Despawn.Decode(bytes);
            return new DespawnFrame { Tick = d.Tick, Id = d.Id };
        }

        /// <summary>Encodes a despawn.</summary>
        public byte[] EncodeDespawn(DespawnFrame f)
        {
            return new Despawn { Tick = f.Tick, Id = f.Id }.Encode();
        }

        /// <summary>Decodes a full frame.</summary>
        public FullFrameFrame DecodeFullFrame(byte[] bytes)
        {
            FullFrame f = FullFrame.Decode(bytes);
            FullEntityFrame[] entities = new FullEntityFrame[f.Entities.Length];
            for (int i = 0; i < entities.Length; i++)
            {
                FullEntity e = f.Entities[i];
                entities[i] = new FullEntityFrame { Id = e.Id, X = e.X, Y = e.Y, Z = e.Z, Components = Machine(e.Components) };
            }
            return new FullFrameFrame { Tick = f.Tick, Precision = f.Precision, Entities = entities };
        }

        /// <summary>Encodes a full frame.</summary>
        public byte[] EncodeFullFrame(FullFrameFrame f)
        {
            FullEntity[] entities = new FullEntity[f.Entities.Length];
            for (int i = 0; i < entities.Length; i++)
            {
                FullEntityFrame e = f.Entities[i];
                entities[i] = new FullEntity { Id = e.Id, X = e.X, Y = e.Y, Z = e.Z, Components = Wire(e.Components) ?? new Component[0] };
            }
            return new FullFrame { Tick = f.Tick, Precision = f.Precision, Entities = entities }.Encode();
        }

        /// <summary>Decodes an ack.</summary>
        public DatagramAckFrame DecodeAck(byte[] bytes)
        {
            DatagramAck a = DatagramAck.Decode(bytes);
            return new DatagramAckFrame { Frame = a.Frame, StreamTick = a.StreamTick };
        }

        /// <summary>Encodes an ack.</summary>
        public byte[] EncodeAck(DatagramAckFrame f)
        {
            return new DatagramAck { Frame = f.Frame, StreamTick = f.StreamTick }.Encode();
        }
    }
}
