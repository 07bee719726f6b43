// The `datagram` session pair (`docs/spec/datagram.md`), as conformance/src/sessions/datagram.rs:
// the server is a Subscription fed by a scripted world; the client is a ReplicaTable. The
// parameters (`precision`, `max_datagram`, `max_held`, `max_held_bytes`), world ops (`spawn`,
// `move`, `set`, `remove`, `despawn`, `full_frame`, `input_ack`) and reports are that module's;
// the client's state hash is FNV-1a 32 over ReplicaTable.CanonicalBytes().

using System;
using System.Collections.Generic;
using System.Globalization;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>The datagram halves: <c>datagram_server</c> and <c>datagram_client</c>.</summary>
static class DatagramHalves
{
    /// <summary>Registers both halves.</summary>
    public static void Register(Registry r)
    {
        r.Add("datagram_server", p => new Server(Sessions.Params(p, "datagram")));
        r.Add("datagram_client", p => new Client(Sessions.Params(p, "datagram")));
    }

    static byte ComponentType(JsonValue b)
    {
        return (byte)RestJson.Uint(b, "type", 255);
    }

    /// <summary>One world op, or null for <c>input_ack</c> (whose seq the caller keeps).</summary>
    static WorldOp Op(JsonValue v)
    {
        KeyValuePair<string, JsonValue> op = RestJson.Op(v);
        JsonValue b = op.Value;
        switch (op.Key)
        {
            case "spawn":
                {
                    WorldOp w = new WorldOp
                    {
                        Kind = WorldOpKind.Spawn,
                        Id = RestJson.Uint(b, "id", ulong.MaxValue),
                        X = RestJson.Number(b, "x"),
                        Y = RestJson.Number(b, "y"),
                        Z = RestJson.Number(b, "z"),
                        Components = new List<KeyValuePair<byte, byte[]>>(),
                    };
                    JsonValue cs = RestJson.Get(b, "components");
                    if (cs != null && cs.Kind == JsonKind.Object)
                    {
                        foreach (KeyValuePair<string, JsonValue> c in cs.Members)
                        {
                            byte t;
                            if (!byte.TryParse(c.Key, NumberStyles.None, CultureInfo.InvariantCulture, out t))
                            {
                                throw new ArgumentException("component type `" + c.Key + "`");
                            }
                            w.Components.Add(new KeyValuePair<byte, byte[]>(t, RestJson.Hex(c.Value)));
                        }
                    }
                    return w;
                }
            case "move":
                return new WorldOp
                {
                    Kind = WorldOpKind.Move,
                    Id = RestJson.Uint(b, "id", ulong.MaxValue),
                    X = RestJson.Number(b, "x"),
                    Y = RestJson.Number(b, "y"),
                    Z = RestJson.Number(b, "z"),
                };
            case "set":
                return new WorldOp
                {
                    Kind = WorldOpKind.Set,
                    Id = RestJson.Uint(b, "id", ulong.MaxValue),
                    Type = ComponentType(b),
                    Data = RestJson.Hex(RestJson.Field(b, "hex")),
                };
            case "remove":
                return new WorldOp { Kind = WorldOpKind.Remove, Id = RestJson.Uint(b, "id", ulong.MaxValue), Type = ComponentType(b) };
            case "despawn":
                return new WorldOp { Kind = WorldOpKind.Despawn, Id = RestJson.Uint(b, "id", ulong.MaxValue) };
            case "full_frame":
                return new WorldOp { Kind = WorldOpKind.FullFrame };
            case "input_ack":
                return null;
            default:
                throw new ArgumentException("unknown world op `" + op.Key + "`");
        }
    }

    sealed class Server : Adapter<DatagramServer, DatagramTick, AckSummary>
    {
        ulong inputAck;

        public Server(JsonValue p)
            : base(Make(p))
        {
        }

        static DatagramServer Make(JsonValue p)
        {
            SubscriptionConfig config = SubscriptionConfig.Default;
            if (RestJson.Get(p, "precision") != null)
            {
                config.Precision = (float)RestJson.Number(p, "precision");
            }
            if (RestJson.Get(p, "max_datagram") != null)
            {
                config.MaxDatagram = (long)RestJson.Uint(p, "max_datagram", long.MaxValue);
            }
            return new DatagramServer(ReferenceDatagram.Instance, new Subscription(ReferenceDatagram.Instance, config));
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            DatagramTick t = new DatagramTick();
            foreach (JsonValue v in ops)
            {
                WorldOp o = Op(v);
                if (o == null)
                {
                    inputAck = RestJson.Uint(RestJson.Field(v, "input_ack"), "seq", ulong.MaxValue);
                }
                else
                {
                    t.Ops.Add(o);
                }
            }
            t.InputAck = inputAck;
            half.HandleTick(new Now(tick, nowMs), t);
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report)
        {
            RestJson.Report(report, frame, j =>
            {
                AckSummary a = half.HandleFrame(new Now(0, nowMs), frame, bytes);
                j.BeginObject();
                j.Name("known");
                j.Bool(a.Known);
                j.Name("covered");
                j.Uint((ulong)a.Covered);
                j.Name("not_covered");
                j.Uint((ulong)a.NotCovered);
                j.EndObject();
            });
        }
    }

    sealed class Client : Adapter<DatagramClient, object, DatagramSummary>
    {
        public Client(JsonValue p)
            : base(Make(p))
        {
        }

        static DatagramClient Make(JsonValue p)
        {
            ReplicaLimits limits = ReplicaLimits.Default;
            if (RestJson.Get(p, "max_held") != null)
            {
                limits.MaxHeld = (int)RestJson.Uint(p, "max_held", int.MaxValue);
            }
            if (RestJson.Get(p, "max_held_bytes") != null)
            {
                limits.MaxHeldBytes = (long)RestJson.Uint(p, "max_held_bytes", long.MaxValue);
            }
            return new DatagramClient(ReferenceDatagram.Instance, new ReplicaTable(limits));
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            if (ops.Count > 0)
            {
                throw new SessionError(SessionError.NoWorld, "the client half takes no world ops");
            }
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report)
        {
            RestJson.Report(report, frame, j =>
            {
                DatagramSummary s = half.HandleFrame(new Now(0, nowMs), frame, bytes);
                j.BeginObject();
                j.Name("held");
                j.Bool(s.Held);
                j.Name("released");
                j.Uint((ulong)s.Released);
                j.Name("applied");
                j.Uint((ulong)s.Applied);
                j.Name("skipped_spawn_tag");
                j.Uint((ulong)s.SkippedSpawnTag);
                j.Name("skipped_stale");
                j.Uint((ulong)s.SkippedStale);
                j.Name("skipped_unknown");
                j.Uint((ulong)s.SkippedUnknown);
                j.Name("given_up");
                j.Uint((ulong)s.GivenUp);
                j.Name("refused");
                j.Uint((ulong)s.Refused);
                // Left out while 0, as the Rust summary's serialization does.
                if (s.SkippedOverBytes != 0)
                {
                    j.Name("skipped_over_bytes");
                    j.Uint((ulong)s.SkippedOverBytes);
                }
                j.EndObject();
            });
        }

        public override uint? StateHash()
        {
            return half.Table.StateHash();
        }
    }
}
