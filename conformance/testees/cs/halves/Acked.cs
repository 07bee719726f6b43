// The `acked` session pair (seed 000) for the testee protocol, ported from
// conformance/src/sessions/acked.rs (and the TS and C++ testees' adapters): `acked_server` is the
// runtime's acked encoder fed by a world and the reference Presenter, over the input schedule;
// `acked_client` is the AckedDecoder with its kind 7 writer. This file only translates the
// protocol's JSON (params, world ops, reports) into the halves' calls; the machines are the
// runtime's (gen/Runtime/Sessions/), bound to the reference protocol by gen/reference/Acked.cs.
//
// Parameters (an object; every key optional, the same object opens both halves): `own` (eids,
// default [1]), `near_enter` and `near_leave` (metres, 12 and 14), `far_every` (6), `max_late`
// and `max_early` (4 and 64: the server's input window), `input_lead` (2: the client aims each
// tick's input this far ahead), `keep_inputs` (16), `corrupt_at` (a tick: at its advance the
// client flips bits 0x55 of the `hp` of every record it holds and shows, a memory corruption the
// next check must catch, after which it asks for a keyframe).

using System;
using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Reference;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>The acked halves: <c>acked_server</c> and <c>acked_client</c>.</summary>
static class AckedHalves
{
    /// <summary>Adds the acked halves to <paramref name="r"/>.</summary>
    public static void Register(Registry r)
    {
        r.Add("acked_server", p => new AckedServer(new AckedParams(p)));
        r.Add("acked_client", p => new AckedClient(new AckedParams(p)));
    }

    const string TickRange = "ticks are u32 on the wire";

    /// <summary>The params of both halves, as conformance/src/sessions/acked.rs reads them.</summary>
    sealed class AckedParams
    {
        public readonly ushort[] Own;
        public readonly TierBoundary Tier;
        public readonly uint FarEvery;
        public readonly ulong MaxLate;
        public readonly ulong MaxEarly;
        public readonly uint Lead;
        public readonly ulong Keep;
        public readonly ulong? CorruptAt;

        public AckedParams(JsonValue v)
        {
            JsonValue o = Sessions.Params(v, "acked");
            Own = new ushort[] { 1 };
            JsonValue own = o.Get("own");
            if (own != null)
            {
                if (own.Kind != JsonKind.Array)
                {
                    throw new ArgumentException("`own` must be an array of eids");
                }
                Own = new ushort[own.Items.Count];
                for (int i = 0; i < Own.Length; i++)
                {
                    ulong? n = Sessions.AsU64(own.Items[i]);
                    if (n == null || n.Value > 65535)
                    {
                        throw new ArgumentException("`own` must hold u16 eids");
                    }
                    Own[i] = (ushort)n.Value;
                }
            }
            float enter = (float)(Sessions.AsF64(o.Get("near_enter")) ?? 12);
            float leave = (float)(Sessions.AsF64(o.Get("near_leave")) ?? 14);
            if (float.IsNaN(enter) || float.IsNaN(leave) || leave < enter)
            {
                throw new ArgumentException("near_leave must not be smaller than near_enter");
            }
            Tier = new TierBoundary(enter, leave);
            FarEvery = Math.Max(1u, U32(Sessions.AsU64(o.Get("far_every")) ?? 6, 6));
            MaxLate = Sessions.AsU64(o.Get("max_late")) ?? 4;
            MaxEarly = Sessions.AsU64(o.Get("max_early")) ?? 64;
            Lead = U32(Sessions.AsU64(o.Get("input_lead")) ?? 2, 2);
            Keep = Sessions.AsU64(o.Get("keep_inputs")) ?? 16;
            CorruptAt = Sessions.AsU64(o.Get("corrupt_at"));
        }

        static uint U32(ulong n, uint d)
        {
            return n <= uint.MaxValue ? (uint)n : d;
        }
    }

    enum OpKind
    {
        Spawn,
        Move,
        Set,
        Despawn,
        Event,
    }

    /// <summary>One world operation of <c>advance</c>.</summary>
    sealed class Op
    {
        public OpKind Kind;
        public int Eid;
        public float X, Y, Z, Yaw;
        public byte Hp, Armor, Seat;
        public ushort Vehicle;
        public Event Event;
    }

    static Op OpFromJson(JsonValue v)
    {
        if (v == null || v.Kind != JsonKind.Object || v.Members.Count != 1)
        {
            throw new ArgumentException("a world op is an object with one key (spawn, move, set, despawn, event)");
        }
        string kind = v.Members[0].Key;
        JsonValue body = v.Members[0].Value;
        JsonValue b = body != null && body.Kind == JsonKind.Object ? body : null;
        Func<string, JsonValue> get = k => b == null ? null : b.Get(k);
        Func<int> eid = () =>
        {
            ulong? e = Sessions.AsU64(get("eid"));
            if (e == null || e.Value > 65535)
            {
                throw new ArgumentException("`" + kind + "` needs a u16 `eid`");
            }
            return (int)e.Value;
        };
        // f32, as the Rust world holds positions and headings.
        Func<string, float> f = k => (float)(Sessions.AsF64(get(k)) ?? 0);
        Func<string, byte> byte_ = k => (byte)Math.Min(255UL, Sessions.AsU64(get(k)) ?? 0);
        switch (kind)
        {
            case "spawn":
                return new Op { Kind = OpKind.Spawn, Eid = eid(), X = f("x"), Y = f("y"), Z = f("z"), Yaw = f("yaw"), Hp = byte_("hp") };
            case "move":
                return new Op { Kind = OpKind.Move, Eid = eid(), X = f("x"), Y = f("y"), Z = f("z"), Yaw = f("yaw") };
            case "set":
                return new Op
                {
                    Kind = OpKind.Set,
                    Eid = eid(),
                    Hp = byte_("hp"),
                    Armor = byte_("armor"),
                    Vehicle = (ushort)Math.Min(65535UL, Sessions.AsU64(get("vehicle")) ?? 0),
                    Seat = byte_("seat"),
                };
            case "despawn":
                return new Op { Kind = OpKind.Despawn, Eid = eid() };
            case "event":
                try
                {
                    return new Op { Kind = OpKind.Event, Event = Event.FromJson(body) };
                }
                catch (JsonError e)
                {
                    throw new ArgumentException("a bad event: " + e.Message);
                }
            default:
                throw new ArgumentException("unknown world op `" + kind + "`");
        }
    }

    /// <summary>The server half: the world, the client's view of it and its acked encoder.</summary>
    sealed class AckedServer : ITesteeSession
    {
        readonly Dictionary<int, WorldEntity> world = new Dictionary<int, WorldEntity>();
        readonly Dictionary<int, ulong> lives = new Dictionary<int, ulong>();
        readonly ScheduledInputs<Input> inputs;
        readonly AckedServerHalf half;
        ulong tick;

        public AckedServer(AckedParams p)
        {
            inputs = new ScheduledInputs<Input>(new InputWindow(p.MaxLate, p.MaxEarly));
            half = new AckedServerHalf(new Presenter(new ViewConfig { Own = p.Own, Tier = p.Tier, FarEvery = p.FarEvery }), inputs);
        }

        /// <summary>The harness's <c>apply_ops</c>: the world after the ops, and the tick's events.</summary>
        List<Event> Apply(List<Op> ops)
        {
            List<Event> events = new List<Event>();
            foreach (Op op in ops)
            {
                WorldEntity w;
                switch (op.Kind)
                {
                    case OpKind.Spawn:
                        {
                            ulong life;
                            lives.TryGetValue(op.Eid, out life);
                            life++;
                            lives[op.Eid] = life;
                            world[op.Eid] = new WorldEntity { Life = life, X = op.X, Y = op.Y, Z = op.Z, Yaw = op.Yaw, Hp = op.Hp };
                            break;
                        }
                    case OpKind.Move:
                        if (world.TryGetValue(op.Eid, out w))
                        {
                            w.X = op.X;
                            w.Y = op.Y;
                            w.Z = op.Z;
                            w.Yaw = op.Yaw;
                        }
                        break;
                    case OpKind.Set:
                        if (world.TryGetValue(op.Eid, out w))
                        {
                            w.Hp = op.Hp;
                            w.Armor = op.Armor;
                            w.Vehicle = op.Vehicle;
                            w.Seat = op.Seat;
                        }
                        break;
                    case OpKind.Despawn:
                        world.Remove(op.Eid);
                        break;
                    case OpKind.Event:
                        events.Add(op.Event);
                        break;
                }
            }
            return events;
        }

        public void Advance(ulong t, ulong nowMs, List<JsonValue> ops)
        {
            List<Op> parsed = new List<Op>();
            foreach (JsonValue v in ops)
            {
                parsed.Add(OpFromJson(v));
            }
            if (t > uint.MaxValue)
            {
                throw new ArgumentException(TickRange);
            }
            tick = t;
            List<Event> events = Apply(parsed);
            // Seed 004 §8: inputs execute on the tick they name; the reference world does not
            // act on them, it only consumes them so the buffer reports what is still ahead.
            Input due;
            while (inputs.ExecuteDue(t, out due))
            {
                // Every due input is consumed by the first call.
            }
            try
            {
                half.HandleTick(new Now(t, nowMs), new AckedTick { World = world, Events = events });
            }
            catch (SessionError e)
            {
                throw new ArgumentException("encoding tick " + t + ": " + e.Message);
            }
        }

        public void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter j)
        {
            if (frame != "ack")
            {
                throw new SessionError(SessionError.UnexpectedFrame, "acked_server takes `ack` frames, not `" + frame + "`");
            }
            AckedAckReport r;
            try
            {
                r = half.HandleFrame(new Now(tick, nowMs), frame, bytes);
            }
            catch (SessionError e)
            {
                DecodeError d = e.InnerException as DecodeError;
                if (e.Kind == SessionError.Decode && d != null)
                {
                    j.BeginObject();
                    j.Name("error");
                    j.String(Errors.KindName(d.Kind));
                    j.EndObject();
                    return;
                }
                throw;
            }
            j.BeginObject();
            j.Name("ack");
            j.String(VerdictName(r.Verdict));
            j.Name("base");
            if (r.Base.HasValue)
            {
                j.Uint(r.Base.Value);
            }
            else
            {
                j.Null();
            }
            j.Name("last_seq");
            j.Uint(r.LastSeq);
            j.Name("keyframes");
            j.Uint(r.Counters.Keyframes);
            j.Name("events_expired");
            j.Uint(r.Counters.EventsExpired);
            j.EndObject();
        }

        static string VerdictName(AckVerdict v)
        {
            switch (v)
            {
                case AckVerdict.Taken: return "taken";
                case AckVerdict.Old: return "old";
                case AckVerdict.Unknown: return "unknown";
                case AckVerdict.Nothing: return "nothing";
                default: return "keyframe_requested";
            }
        }

        public List<Transmit> Take()
        {
            return Sessions.Drain(half);
        }

        public uint? StateHash()
        {
            return null;
        }
    }

    /// <summary>The client half: the runtime's (the AckedDecoder and the kind 7 writer), a scripted player.</summary>
    sealed class AckedClient : ITesteeSession
    {
        readonly AckedClientHalf half;
        readonly uint lead;
        readonly ulong? corruptAt;

        public AckedClient(AckedParams p)
        {
            half = new AckedClientHalf(p.Keep);
            lead = p.Lead;
            corruptAt = p.CorruptAt;
        }

        public void Advance(ulong tick, ulong nowMs, List<JsonValue> ops)
        {
            if (corruptAt.HasValue && corruptAt.Value == tick)
            {
                half.Decoder.Tamper((eid, r) => r.Hp ^= 0x55);
            }
            if (tick > uint.MaxValue)
            {
                throw new ArgumentException(TickRange);
            }
            Input input = new Input
            {
                Tick = (uint)Math.Min(uint.MaxValue, tick + lead),
                Buttons = tick % 10 == 0 ? Buttons.FIRE : 0,
                MoveX = 1,
                MoveY = 0,
                Yaw = (tick % 256) * (360.0 / 256),
            };
            half.HandleTick(new Now(tick, nowMs), input);
        }

        public void Deliver(ulong nowMs, string frame, byte[] bytes, JsonWriter j)
        {
            if (frame != "acked")
            {
                throw new SessionError(SessionError.UnexpectedFrame, "acked_client takes `acked` frames, not `" + frame + "`");
            }
            // The client does not count ticks; its decoder reads none.
            Delivery<Event> d = half.HandleFrame(new Now(0, nowMs), frame, bytes);
            j.BeginObject();
            switch (d.Kind)
            {
                case DeliveryKind.Shown:
                    {
                        FrameReport<Event> r = d.Report;
                        j.Name("shown");
                        j.BeginObject();
                        j.Name("tick");
                        j.Uint(r.Tick);
                        j.Name("base_tick");
                        j.Uint(r.BaseTick);
                        j.Name("keyframe");
                        j.Bool(r.Keyframe);
                        j.Name("changed");
                        j.String(string.Join(" ", r.Changed));
                        List<string> parts = new List<string>();
                        for (int i = 0; i < r.MeasuredEids.Count; i++)
                        {
                            parts.Add(r.MeasuredEids[i] + "@" + r.MeasuredTicks[i]);
                        }
                        j.Name("measured");
                        j.String(string.Join(" ", parts));
                        j.Name("gone");
                        j.String(string.Join(" ", r.Gone));
                        parts.Clear();
                        for (int i = 0; i < r.TierEids.Count; i++)
                        {
                            parts.Add(r.TierEids[i] + ":" + (r.TierFull[i] ? "full" : "quantized"));
                        }
                        j.Name("tiers");
                        j.String(string.Join(" ", parts));
                        j.Name("events");
                        j.BeginArray();
                        for (int i = 0; i < r.Events.Count; i++)
                        {
                            j.BeginObject();
                            j.Name("serial");
                            j.Uint(r.EventSerials[i]);
                            j.Name("event");
                            r.Events[i].ToJson(j);
                            j.EndObject();
                        }
                        j.EndArray();
                        j.Name("check");
                        if (r.Check.HasValue)
                        {
                            j.Bool(r.Check.Value);
                        }
                        else
                        {
                            j.Null();
                        }
                        j.EndObject();
                        break;
                    }
                case DeliveryKind.Stale:
                    j.Name("dropped");
                    j.String("stale");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    break;
                case DeliveryKind.UnknownBase:
                    j.Name("dropped");
                    j.String("unknown_base");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    j.Name("base_tick");
                    j.Uint(d.BaseTick);
                    break;
                case DeliveryKind.Undecodable:
                    j.Name("error");
                    j.String(Errors.KindName(d.Error.Kind));
                    break;
                case DeliveryKind.Inapplicable:
                    j.Name("dropped");
                    j.String("inapplicable");
                    j.Name("tick");
                    j.Uint(d.Tick);
                    j.Name("why");
                    j.String(d.Why);
                    break;
            }
            j.EndObject();
        }

        public List<Transmit> Take()
        {
            return Sessions.Drain(half);
        }

        public uint? StateHash()
        {
            return half.StateHash();
        }
    }
}
