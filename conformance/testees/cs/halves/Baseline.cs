// The `baseline` session pair (`docs/spec/baseline.md`), as conformance/src/sessions/baseline.rs:
// the server is a SnapshotWriter over a scripted Scene, one snapshot a tick; the client is a
// SnapshotClient that acknowledges each snapshot it applies. The parameters (`budget`, `client`,
// `first_sequence`, `max_entities`), world ops (`spawn`, `despawn`, `transform`, `velocity`,
// `health`, `team`) and reports are that module's; the client's state hash is FNV-1a 32 over
// SnapshotClient.CanonicalBytes().

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>The baseline halves: <c>baseline_server</c> and <c>baseline_client</c>.</summary>
static class BaselineHalves
{
    /// <summary>Registers both halves.</summary>
    public static void Register(Registry r)
    {
        r.Add("baseline_server", p => new Server(new Params(Sessions.Params(p, "baseline"))));
        r.Add("baseline_client", p => new Client(new Params(Sessions.Params(p, "baseline"))));
    }

    sealed class Params
    {
        public long Budget;
        public uint Client;
        public ushort First;
        public int MaxEntities;

        static ulong Get(JsonValue o, string key, ulong otherwise, ulong max)
        {
            return RestJson.Get(o, key) == null ? otherwise : RestJson.Uint(o, key, max);
        }

        public Params(JsonValue o)
        {
            Budget = (long)Get(o, "budget", 1200, long.MaxValue);
            Client = (uint)Get(o, "client", 1, uint.MaxValue);
            First = (ushort)Get(o, "first_sequence", 0, ushort.MaxValue);
            MaxEntities = (int)Get(o, "max_entities", 1 << 16, int.MaxValue);
        }
    }

    static byte Small(JsonValue b, string key)
    {
        return (byte)RestJson.Uint(b, key, 255);
    }

    static uint Slot(JsonValue b)
    {
        return (uint)RestJson.Uint(b, "slot", uint.MaxValue);
    }

    static void Apply(Scene<object> scene, JsonValue v)
    {
        KeyValuePair<string, JsonValue> op = RestJson.Op(v);
        JsonValue b = op.Value;
        switch (op.Key)
        {
            case "spawn":
                {
                    ulong? o = Sessions.AsU64(RestJson.Get(b, "owner"));
                    uint? owner = o.HasValue && o.Value <= uint.MaxValue ? (uint)o.Value : (uint?)null;
                    scene.Spawn(new EntityId(Slot(b), Small(b, "generation")), owner);
                    return;
                }
            case "despawn":
                scene.Despawn(Slot(b));
                return;
            case "transform":
                scene.Set(Slot(b), 0, new Transform
                {
                    X = RestJson.Number(b, "x"),
                    Y = RestJson.Number(b, "y"),
                    Z = RestJson.Number(b, "z"),
                    Yaw = RestJson.Number(b, "yaw"),
                });
                return;
            case "velocity":
                scene.Set(Slot(b), 1, new Velocity { Vx = RestJson.Number(b, "vx"), Vy = RestJson.Number(b, "vy"), Vz = RestJson.Number(b, "vz") });
                return;
            case "health":
                scene.Set(Slot(b), 2, new Vitality { Hp = Small(b, "hp") });
                return;
            case "team":
                scene.Set(Slot(b), 3, new Team { Team_ = Small(b, "team") });
                return;
            default:
                throw new ArgumentException("unknown world op `" + op.Key + "`");
        }
    }

    sealed class Server : Adapter<BaselineServer<object>, Scene<object>, BaselineAckReport>
    {
        readonly Scene<object> scene = new Scene<object>(ReferenceBaseline.Instance);

        public Server(Params p)
            : base(new BaselineServer<object>(
                ReferenceBaseline.Instance,
                new SnapshotWriter<object>(ReferenceBaseline.Instance, p.Client, p.Budget, p.First, BaselineLimits.Default)))
        {
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            foreach (JsonValue v in ops)
            {
                Apply(scene, v);
            }
            half.HandleTick(new Now(tick, nowMs), scene);
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report)
        {
            RestJson.Report(report, frame, j =>
            {
                BaselineAckReport r = half.HandleFrame(new Now(0, nowMs), frame, bytes);
                j.BeginObject();
                j.Name("pending");
                j.Uint((ulong)r.Pending);
                j.Name("told");
                j.Uint((ulong)r.Told);
                j.EndObject();
            });
        }
    }

    sealed class Client : Adapter<BaselineClient<object>, object, SnapshotSummary>
    {
        public Client(Params p)
            : base(new BaselineClient<object>(ReferenceBaseline.Instance, new SnapshotClient<object>(ReferenceBaseline.Instance, p.MaxEntities)))
        {
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
                SnapshotSummary s = half.HandleFrame(new Now(0, nowMs), frame, bytes);
                j.BeginObject();
                j.Name("applied");
                j.Bool(s.Applied);
                j.Name("stale");
                j.Bool(s.Stale);
                j.Name("malformed");
                j.Bool(s.Malformed);
                j.Name("removed");
                j.Uint((ulong)s.Removed);
                j.Name("not_ours");
                j.Uint((ulong)s.NotOurs);
                j.Name("created");
                j.Uint((ulong)s.Created);
                j.Name("updated");
                j.Uint((ulong)s.Updated);
                j.Name("refused");
                j.Uint((ulong)s.Refused);
                j.EndObject();
            });
        }

        public override uint? StateHash()
        {
            return half.Client.StateHash();
        }
    }
}
