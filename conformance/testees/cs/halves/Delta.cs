// The `delta` session pair (`docs/spec/delta.md`), as conformance/src/sessions/delta.rs: the server
// is a world of slot keys and one subscriber's DeltaBaseline; the client is a DeltaMirror that
// stops reading during `client_stalls` and drops its mirror when it reads again. The parameters,
// world ops and reports are that module's; the client's state hash is FNV-1a 32 over the mirror's
// keys ascending, each a u64 little endian.

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>The delta halves: <c>delta_server</c> and <c>delta_client</c>.</summary>
static class DeltaHalves
{
    /// <summary>Registers both halves.</summary>
    public static void Register(Registry r)
    {
        r.Add("delta_server", p => new Server(new Params(Sessions.Params(p, "delta"))));
        r.Add("delta_client", p => new Client(new Params(Sessions.Params(p, "delta"))));
    }

    sealed class Params
    {
        public int History;
        public RecoveryPolicy Policy;
        public FlowControl? Flow;
        public List<KeyValuePair<ulong, ulong>> Stalls = new List<KeyValuePair<ulong, ulong>>();

        static ulong? U(JsonValue o, string key)
        {
            JsonValue v = RestJson.Get(o, key);
            if (v == null || v.Kind == JsonKind.Null)
            {
                return null;
            }
            ulong? n = Sessions.AsU64(v);
            if (n == null)
            {
                throw new ArgumentException("`" + key + "` must be a non-negative integer");
            }
            return n;
        }

        public Params(JsonValue o)
        {
            History = (int)Math.Min(U(o, "history") ?? 32, 1UL << 16);
            JsonValue p = RestJson.Get(o, "policy");
            if (p == null || (p.Kind == JsonKind.String && p.Text == "ack_recovery"))
            {
                Policy = RecoveryPolicy.AckRecovery;
            }
            else if (p.Kind == JsonKind.String && p.Text == "naive")
            {
                Policy = RecoveryPolicy.Naive;
            }
            else
            {
                throw new ArgumentException("unknown policy `" + (p.Text ?? "") + "`");
            }
            ulong? a = U(o, "stalled_after_ms");
            ulong? k = U(o, "keepalive_every_ms");
            if (a.HasValue != k.HasValue)
            {
                throw new ArgumentException("`stalled_after_ms` and `keepalive_every_ms` go together");
            }
            if (a.HasValue)
            {
                Flow = new FlowControl { StalledAfter = a.Value, KeepaliveEvery = k.Value };
            }
            JsonValue list = RestJson.Get(o, "client_stalls");
            if (list != null)
            {
                if (list.Kind != JsonKind.Array)
                {
                    throw new ArgumentException("`client_stalls` must be a list");
                }
                foreach (JsonValue s in list.Items)
                {
                    ulong? from = s.Kind == JsonKind.Array && s.Items.Count >= 2 ? Sessions.AsU64(s.Items[0]) : null;
                    ulong? to = s.Kind == JsonKind.Array && s.Items.Count >= 2 ? Sessions.AsU64(s.Items[1]) : null;
                    if (from == null || to == null)
                    {
                        throw new ArgumentException("a stall is [from_ms, to_ms]");
                    }
                    Stalls.Add(new KeyValuePair<ulong, ulong>(from.Value, to.Value));
                }
            }
        }
    }

    static SlotKey KeyOf(JsonValue v)
    {
        ulong? k = Sessions.AsU64(v);
        if (k == null || k.Value >= 1UL << 48)
        {
            throw new ArgumentException("a key is an integer below 2^48");
        }
        return SlotKey.Decode(k.Value);
    }

    static void Big(JsonWriter j, ulong? v)
    {
        if (v.HasValue)
        {
            j.Uint(v.Value);
        }
        else
        {
            j.Null();
        }
    }

    static string DecodeKind(Exception e)
    {
        DecodeError d = e as DecodeError ?? e.InnerException as DecodeError;
        return d != null ? Errors.KindName(d.Kind) : e.Message;
    }

    static void Dropped(JsonWriter j, string why)
    {
        j.BeginObject();
        j.Name("dropped");
        j.String(why);
        j.EndObject();
    }

    sealed class Server : Adapter<DeltaServer, HashSet<ulong>, DeltaAckReport>
    {
        readonly Dictionary<uint, ushort> world = new Dictionary<uint, ushort>();

        public Server(Params p)
            : base(new DeltaServer(ReferenceDelta.Instance, new DeltaBaseline(p.History, p.Policy, p.Flow, true)))
        {
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            foreach (JsonValue op in ops)
            {
                JsonValue enter = RestJson.Get(op, "enter");
                JsonValue leave = RestJson.Get(op, "leave");
                JsonValue reset = RestJson.Get(op, "reset");
                JsonValue full = RestJson.Get(op, "request_full_baseline");
                if (enter != null)
                {
                    SlotKey k = KeyOf(enter);
                    world[k.Index] = k.Generation;
                }
                else if (leave != null)
                {
                    SlotKey k = KeyOf(leave);
                    ushort g;
                    if (world.TryGetValue(k.Index, out g) && g == k.Generation)
                    {
                        world.Remove(k.Index);
                    }
                }
                else if (reset != null && reset.Kind == JsonKind.Bool && reset.BoolValue)
                {
                    half.Baseline.Reset();
                }
                else if (full != null && full.Kind == JsonKind.Bool && full.BoolValue)
                {
                    half.Baseline.RequestFullBaseline();
                }
                else
                {
                    throw new ArgumentException("unknown delta world op");
                }
            }
            HashSet<ulong> visible = new HashSet<ulong>();
            foreach (KeyValuePair<uint, ushort> kv in world)
            {
                visible.Add(Digests.SlotKeyOf(kv.Key, kv.Value));
            }
            half.HandleTick(new Now(tick, nowMs), visible);
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report)
        {
            DeltaAckReport r;
            try
            {
                r = half.HandleFrame(new Now(0, nowMs), frame, bytes);
            }
            catch (SessionError e)
            {
                if (e.Kind == SessionError.UnexpectedFrame)
                {
                    Dropped(report, "the server takes delta_ack, not " + frame);
                    return;
                }
                if (e.Kind == SessionError.Decode)
                {
                    Dropped(report, DecodeKind(e));
                    return;
                }
                throw;
            }
            report.BeginObject();
            report.Name("acked_seq");
            Big(report, r.AckedSeq);
            report.Name("unacked");
            report.Uint((ulong)r.Unacked);
            report.Name("full_rebuilds");
            report.Uint((ulong)r.FullRebuilds);
            report.Name("stalled");
            report.Bool(r.Stalled);
            report.EndObject();
        }
    }

    sealed class Client : Adapter<DeltaClient, object, Applied>
    {
        readonly Params p;
        bool unread;

        public Client(Params p)
            : base(new DeltaClient(ReferenceDelta.Instance, new DeltaMirror()))
        {
            this.p = p;
        }

        public override void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            if (ops.Count > 0)
            {
                throw new ArgumentException("the delta client takes no world ops");
            }
        }

        public override void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter report)
        {
            if (frame != ReferenceDelta.Instance.PlanFrame)
            {
                Dropped(report, "the client takes delta_plan, not " + frame);
                return;
            }
            foreach (KeyValuePair<ulong, ulong> s in p.Stalls)
            {
                if (s.Key <= nowMs && nowMs < s.Value)
                {
                    unread = true;
                    report.BeginObject();
                    report.Name("unread");
                    report.Bool(true);
                    report.EndObject();
                    return;
                }
            }
            // A plan that does not decode leaves the mirror, and whether it is to be dropped, as
            // they are: check before the half reads it.
            try
            {
                ReferenceDelta.Instance.DecodePlan(bytes);
            }
            catch (DecodeError e)
            {
                Dropped(report, DecodeKind(e));
                return;
            }
            bool droppedMirror = unread;
            unread = false;
            if (droppedMirror)
            {
                half.Mirror.Clear();
            }
            Applied a;
            try
            {
                a = half.HandleFrame(new Now(0, nowMs), frame, bytes);
            }
            catch (SessionError e)
            {
                if (e.Kind != SessionError.Limit)
                {
                    throw;
                }
                report.BeginObject();
                report.Name("refused");
                report.String(e.Message);
                report.Name("held");
                report.Uint((ulong)half.Mirror.Count);
                report.EndObject();
                return;
            }
            report.BeginObject();
            report.Name("applied");
            report.Bool(a.WasApplied);
            report.Name("full_baseline");
            report.Bool(a.Cleared);
            report.Name("entered");
            report.Uint((ulong)a.Entered);
            report.Name("left");
            report.Uint((ulong)a.Left);
            report.Name("held");
            report.Uint((ulong)half.Mirror.Count);
            report.Name("dropped_mirror");
            report.Bool(droppedMirror);
            report.EndObject();
        }

        /// FNV-1a 32 over the mirror's keys ascending, each a u64 little endian.
        public override uint? StateHash()
        {
            List<ulong> keys = half.Mirror.Keys();
            byte[] bytes = new byte[keys.Count * 8];
            for (int i = 0; i < keys.Count; i++)
            {
                for (int b = 0; b < 8; b++)
                {
                    bytes[i * 8 + b] = unchecked((byte)(keys[i] >> (8 * b)));
                }
            }
            return Fnv.Fnv1a32(bytes);
        }
    }
}
